package org.panamardma.nfs.rpc;

import java.lang.foreign.MemorySegment;
import org.panamardma.xdr.XdrDecoder;

/**
 * Decodes a procedure's results, with the transport's help for items eligible for direct data placement.
 *
 * @param <T> the results type
 */
@FunctionalInterface
public interface ReplyReader<T> {
    /**
     * Decodes the results of one reply, on the thread that waits for the call.
     *
     * @param in the results, positioned after the RPC reply header
     * @param placement reads DDP-eligible items: from {@code in} when they came inline, from where the transport
     *                  placed them otherwise
     * @return the results, never {@code null}
     * @throws org.panamardma.xdr.XdrException if the results are malformed
     */
    T read(XdrDecoder in, ReplyPlacement placement);

    /**
     * Where the reply's DDP-eligible item (READ data) should land, if this reader wants it placed directly: the
     * memory RPC-over-RDMA registers and offers the server as a Write chunk (RFC 8166 section 3.4.6). Transports
     * that carry everything inline ignore it.
     *
     * @return the target, at least as large as the largest eligible item the reply can hold; {@code null} if the
     *         reply has no eligible item
     */
    default MemorySegment placementTarget() {
        return null;
    }

    /**
     * The largest reply this call can get, as a hint: RPC-over-RDMA provides a Reply chunk when it exceeds the
     * inline receive threshold (RFC 8166 section 3.5.3), as Linux's xprtrdma does from the procedure's reply size.
     *
     * @return the bound in bytes of the results (the RPC header excluded), or {@code -1} if unknown
     */
    default long maxResultsSize() {
        return -1;
    }

    /**
     * A reader with no eligible item and no size hint, from a plain decoding function.
     *
     * @param <T> the results type
     * @param reader decodes the results from the XDR stream
     * @return the reader
     */
    static <T> ReplyReader<T> of(org.panamardma.xdr.XdrReader<T> reader) {
        return (in, placement) -> reader.read(in);
    }
}
