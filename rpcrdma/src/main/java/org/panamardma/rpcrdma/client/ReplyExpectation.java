package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * What the caller knows about a call's reply, which decides the reply's chunks (RFC 8166 section 3.5.3):
 *
 * @param maxResultsSize the largest the results (after the RPC reply header) can be, DDP-eligible data included;
 *     {@code -1} if unknown, in which case the reply is assumed to fit inline unless
 *     {@link RpcRdmaClientOptions#alwaysReplyChunk()} is set (as for NULL, GETATTR, LOOKUP)
 * @param placementTargets memory for the reply's DDP-eligible items, in the order they appear in the results
 *     (NFS READ data): each large enough one is offered to the server as a Write chunk (RFC 8166 section 3.4.6),
 *     so the server writes the item straight into it
 */
public record ReplyExpectation(long maxResultsSize, List<MemorySegment> placementTargets) {
    /** A small reply with no eligible item. */
    public static final ReplyExpectation SMALL = new ReplyExpectation(-1, List.of());

    /**
     * Copies the targets and checks the size.
     *
     * @throws IllegalArgumentException if {@code maxResultsSize} is below -1
     */
    public ReplyExpectation {
        placementTargets = List.copyOf(placementTargets);
        if (maxResultsSize < -1) {
            throw new IllegalArgumentException("maxResultsSize " + maxResultsSize);
        }
    }

    /**
     * A reply of at most {@code maxResultsSize} bytes of results, with no eligible item.
     *
     * @param maxResultsSize the largest results, in bytes ({@code -1}: inline only)
     * @return the expectation
     */
    public static ReplyExpectation upTo(long maxResultsSize) {
        return new ReplyExpectation(maxResultsSize, List.of());
    }

    /**
     * A reply whose one eligible item should land in {@code target}.
     *
     * @param target where the server writes the item (a Write chunk)
     * @param maxResultsSize the largest results, in bytes ({@code -1}: inline only)
     * @return the expectation
     */
    public static ReplyExpectation placedInto(MemorySegment target, long maxResultsSize) {
        return new ReplyExpectation(maxResultsSize, List.of(target));
    }
}
