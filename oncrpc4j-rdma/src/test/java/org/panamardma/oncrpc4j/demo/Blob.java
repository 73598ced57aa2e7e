package org.panamardma.oncrpc4j.demo;

import java.io.IOException;
import java.util.Arrays;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;

/** {@code typedef opaque blob<>}. */
public final class Blob implements XdrAble {
    public byte[] value;

    public Blob() {}

    public Blob(byte[] value) {
        this.value = value;
    }

    @Override
    public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
        xdr.xdrEncodeDynamicOpaque(value);
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
        value = xdr.xdrDecodeDynamicOpaque();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Blob b && Arrays.equals(value, b.value);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Blob[" + (value == null ? "null" : value.length + " bytes") + "]";
    }
}
