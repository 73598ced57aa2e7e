package org.panamardma.nfs.rpc;

import java.lang.foreign.MemorySegment;
import org.panamardma.xdr.XdrDecoder;

/**
 * The decoding side of direct data placement, the counterpart of the encoder's
 * {@link org.panamardma.xdr.DataPlacement}: reads an {@code opaque<>} item that the upper layer declared eligible
 * (RFC 8166 section 3.4.2). Its length word is always in the XDR stream; its bytes are in the stream too when the
 * item came inline, or were written by the server into the Write chunk the client offered, in which case the
 * reduced stream holds neither the bytes nor their roundup (RFC 8166 section 3.4.6).
 */
@FunctionalInterface
public interface ReplyPlacement {
    /** Every item came inline (TCP, or an RDMA reply that used no Write chunk). */
    ReplyPlacement INLINE = XdrDecoder::getOpaque;

    /**
     * Reads an eligible {@code opaque<maxLength>}.
     *
     * @param in the reply stream, positioned at the item's length word
     * @param maxLength the declared maximum (or the caller's bound, such as the count requested)
     * @return the item's bytes: a slice of the stream, or of the {@link ReplyReader#placementTarget()} when placed
     * @throws org.panamardma.xdr.XdrException if the length exceeds {@code maxLength} or the data is missing
     */
    MemorySegment getEligibleOpaque(XdrDecoder in, int maxLength);
}
