package org.panamardma.oncrpc4j.demo;

import java.io.IOException;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/** {@code struct list_args { unsigned count; unsigned nameLength; }}. */
public final class ListArgs implements XdrAble {
    public int count;
    public int nameLength;

    public ListArgs() {}

    public ListArgs(int count, int nameLength) {
        this.count = count;
        this.nameLength = nameLength;
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
        xdr.xdrEncodeInt(count);
        xdr.xdrEncodeInt(nameLength);
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
        count = xdr.xdrDecodeInt();
        nameLength = xdr.xdrDecodeInt();
    }
}
