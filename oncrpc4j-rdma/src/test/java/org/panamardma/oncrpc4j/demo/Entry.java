package org.panamardma.oncrpc4j.demo;

import java.io.IOException;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/** {@code struct entry { hyper cookie; string name<255>; int kind; }}. */
public final class Entry implements XdrAble {
    public long cookie;
    public String name;
    public int kind;

    public Entry() {}

    public Entry(long cookie, String name, int kind) {
        this.cookie = cookie;
        this.name = name;
        this.kind = kind;
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
        xdr.xdrEncodeLong(cookie);
        xdr.xdrEncodeString(name);
        xdr.xdrEncodeInt(kind);
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
        cookie = xdr.xdrDecodeLong();
        name = xdr.xdrDecodeString();
        kind = xdr.xdrDecodeInt();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Entry e && cookie == e.cookie && kind == e.kind && name.equals(e.name);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(cookie) * 31 + name.hashCode() + kind;
    }
}
