package org.panamardma.oncrpc4j.demo;

import java.io.IOException;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/** {@code struct read_args { string name<255>; hyper offset; unsigned count; }}. */
public final class ReadArgs implements XdrAble {
    public String name;
    public long offset;
    public int count;

    public ReadArgs() {}

    public ReadArgs(String name, long offset, int count) {
        this.name = name;
        this.offset = offset;
        this.count = count;
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
        xdr.xdrEncodeString(name);
        xdr.xdrEncodeLong(offset);
        xdr.xdrEncodeInt(count);
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
        name = xdr.xdrDecodeString();
        offset = xdr.xdrDecodeLong();
        count = xdr.xdrDecodeInt();
    }
}
