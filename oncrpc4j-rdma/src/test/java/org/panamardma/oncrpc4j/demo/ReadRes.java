package org.panamardma.oncrpc4j.demo;

import java.io.IOException;
import java.util.Arrays;
import java.util.Objects;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.glassfish.grizzly.FileChunk;

/**
 * {@code struct read_res { int status; bool eof; opaque data<>; }}. A server encodes the data from a file region
 * with {@link Xdr#xdrEncodeFileChunk} (oncrpc4j's zero-copy path: over TCP the region goes to the socket with
 * {@code transferTo}); a client decodes it as the opaque it is.
 */
public final class ReadRes implements XdrAble {
    public int status;
    public boolean eof;
    /** The data as decoded by a client. */
    public byte[] data = new byte[0];
    /** The data as a server sends it: a region of a file. */
    public FileChunk file;

    @Override
    public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
        xdr.xdrEncodeInt(status);
        xdr.xdrEncodeBoolean(eof);
        if (file != null) {
            ((Xdr) xdr).xdrEncodeFileChunk(file);
        } else {
            xdr.xdrEncodeDynamicOpaque(data);
        }
    }

    @Override
    public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
        status = xdr.xdrDecodeInt();
        eof = xdr.xdrDecodeBoolean();
        data = xdr.xdrDecodeDynamicOpaque();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReadRes r && status == r.status && eof == r.eof && Arrays.equals(data, r.data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, eof, Arrays.hashCode(data));
    }

    @Override
    public String toString() {
        return "ReadRes[status=" + status + ", eof=" + eof + ", " + data.length + " bytes]";
    }
}
