package org.panamardma.oncrpc4j.demo;

import java.io.IOException;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/** {@code struct add_args { hyper a; hyper b; }}. */
public final class AddArgs implements XdrAble {
    public long a;
    public long b;

    public AddArgs() {}

    public AddArgs(long a, long b) {
        this.a = a;
        this.b = b;
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
        xdr.xdrEncodeLong(a);
        xdr.xdrEncodeLong(b);
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
        a = xdr.xdrDecodeLong();
        b = xdr.xdrDecodeLong();
    }
}
