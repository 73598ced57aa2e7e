package org.panamardma.xdr;

import java.lang.foreign.MemorySegment;

/**
 * Decides, item by item, whether bulk data the upper layer marked eligible for direct data placement is moved out
 * of the XDR stream. This is the hook RPC-over-RDMA uses (RFC 8166 section 3.4.2, "DDP-Eligibility"): when it
 * takes an item, it carries it in a Read chunk or Write chunk and the encoder writes only what stays inline (the
 * length word). Transports that move everything inline, such as TCP, use {@link #INLINE}.
 *
 * <p>XDR itself knows nothing of RDMA; it reports where in the <em>unreduced</em> stream the item would have
 * started, which is what a Read chunk's position means (RFC 8166 section 3.4.5).
 */
public interface DataPlacement {
    /** Keeps every item inline. */
    DataPlacement INLINE = (position, data) -> false;

    /**
     * Offers an eligible item.
     *
     * @param streamPosition the item's data offset in the full (unreduced) XDR stream, after its length word
     * @param data the item's bytes, without XDR padding; valid only as long as the caller keeps it valid
     * @return {@code true} if the item was taken out of band and must not be encoded inline
     */
    boolean placeDirectly(long streamPosition, MemorySegment data);

    /**
     * Forgets every item taken at or after {@code streamPosition}, because the encoder was rewound to there
     * (a reply replaced by an error reply, for instance). Does nothing by default.
     *
     * @param streamPosition the unreduced stream position the encoder was reset to
     */
    default void discardFrom(long streamPosition) {}
}
