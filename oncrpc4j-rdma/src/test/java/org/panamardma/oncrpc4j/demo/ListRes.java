package org.panamardma.oncrpc4j.demo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/** {@code struct list_res { entry entries<>; bool eof; }}. */
public final class ListRes implements XdrAble {
    public List<Entry> entries = new ArrayList<>();
    public boolean eof;

    @Override
    public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
        xdr.xdrEncodeInt(entries.size());
        for (Entry e : entries) {
            e.xdrEncode(xdr);
        }
        xdr.xdrEncodeBoolean(eof);
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
        int n = xdr.xdrDecodeInt();
        if (n < 0 || n > 1_000_000) {
            throw new OncRpcException("entry count " + n) {
                private static final long serialVersionUID = 1L;
            };
        }
        entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Entry e = new Entry();
            e.xdrDecode(xdr);
            entries.add(e);
        }
        eof = xdr.xdrDecodeBoolean();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ListRes r && eof == r.eof && entries.equals(r.entries);
    }

    @Override
    public int hashCode() {
        return entries.hashCode() + (eof ? 1 : 0);
    }
}
