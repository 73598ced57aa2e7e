package org.panamardma.rpcrdma.server;

import java.lang.foreign.MemorySegment;
import org.panamardma.xdr.XdrEncoder;

/**
 * Grows a reply's encoding space: from the Send buffer into heap memory taken from the call's budget, each time to
 * twice the size (or what the item needs), never beyond {@code limit}. A refusal at the limit means the reply is
 * larger than the client can take; a refusal for memory is recorded by the {@link CallMemory}.
 */
final class ReplyGrowth implements XdrEncoder.Growth {
    private final long limit;
    private final CallMemory memory;
    private final MemorySegment first;
    private boolean refusedAtLimit;

    ReplyGrowth(MemorySegment first, long limit, CallMemory memory) {
        this.first = first;
        this.limit = limit;
        this.memory = memory;
    }

    @Override
    public MemorySegment grow(MemorySegment current, long used, long needed) {
        if (needed > limit) {
            refusedAtLimit = true;
            return null;
        }
        long size = Math.min(limit, Math.max(needed, Math.max(8192, current.byteSize() * 2)));
        MemorySegment larger;
        try {
            larger = memory.heap(size);
        } catch (MemoryRefused refused) {
            return null; // recorded in the CallMemory; the call is answered ERR_CHUNK
        }
        MemorySegment.copy(current, 0, larger, 0, used);
        // identity, not contents: a segment grown earlier (ours to free), not the caller's first one
        @SuppressWarnings("MemorySegmentReferenceEquality")
        boolean grownBefore = current != first;
        if (grownBefore && current.byteSize() > 0) {
            memory.freeHeap(current);
        }
        return larger;
    }

    boolean refusedAtLimit() {
        return refusedAtLimit;
    }
}
