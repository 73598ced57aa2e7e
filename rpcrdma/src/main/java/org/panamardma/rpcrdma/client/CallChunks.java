package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.rpcrdma.memory.ChunkAccess;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.trusted.Callbacks;

/**
 * The chunk memory of one call: what {@link #build} exposes for the plan's Read list, Write list and Reply chunk,
 * held until the call ends. The call ends in two steps: {@link #revoke()} makes every segment unreachable for the
 * server (RFC 8166 section 3.4.3 gives it the handles for the call only), and once that has completed,
 * {@link #release()} lets the memory go; only then is the caller's future completed, so that a caller may free or
 * reuse its memory as soon as it has the reply (or the error, or the timeout) in hand. The reply is read from the
 * Reply chunk and the bounce buffers between the two steps, when the server can no longer change them.
 */
final class CallChunks {
    private final ChunkMemory memory;
    private final List<ChunkMemory.Chunk> chunks = new ArrayList<>(2);
    /** Per placement target: the pool memory the server writes instead of a heap target, or null. */
    final List<MemorySegment> bounces = new ArrayList<>();
    /** The Reply chunk's memory, or null. */
    MemorySegment replyChunk;
    /** Guarded by this: the revocation under way or done, or null. */
    private CompletableFuture<Void> revoked;
    /** Guarded by this. */
    private boolean released;

    CallChunks(ChunkMemory memory) {
        this.memory = memory;
    }

    /**
     * Exposes the plan's chunk memory with one right each (RDMA Read of Read chunks, RDMA Write of Write and Reply
     * chunks) and returns the chunk lists of the call's transport header. If it throws, the chunks exposed so far
     * are held: {@link #revoke()} and {@link #release()} them.
     */
    ChunkLists build(CallPlan plan, ReplyExpectation expectation) throws RdmaException {
        List<ReadSegment> readList = new ArrayList<>();
        switch (plan.kind()) {
            case INLINE -> {}
            case READ_CHUNKS -> {
                for (CallPlan.ReadItem item : plan.readItems()) {
                    // RFC 8166 section 3.4.5.2: the position is the item's XDR position in the whole call
                    readList.add(new ReadSegment(
                            Math.toIntExact(item.position()),
                            hold(memory.expose(item.data(), ChunkAccess.SOURCE)).rdmaSegment()));
                }
            }
            // RFC 8166 section 3.5.3: a Long Call sends the whole RPC call in a position-zero Read chunk
            case POSITION_ZERO ->
                readList.add(new ReadSegment(
                        0,
                        hold(memory.expose(plan.message(), ChunkAccess.SOURCE)).rdmaSegment()));
        }
        List<WriteChunk> writeList = new ArrayList<>();
        List<MemorySegment> targets = expectation.placementTargets();
        for (int i = 0; i < targets.size(); i++) {
            MemorySegment target = targets.get(i);
            if (!plan.writeTargets().get(i)) {
                bounces.add(null);
                continue;
            }
            ChunkMemory.Chunk c = hold(memory.expose(target, ChunkAccess.SINK));
            bounces.add(target.isNative() ? null : c.segment);
            writeList.add(WriteChunk.of(c.rdmaSegment()));
        }
        Optional<WriteChunk> reply = Optional.empty();
        if (plan.replyChunkLength() > 0) {
            ChunkMemory.Chunk c = hold(memory.scratch(plan.replyChunkLength(), ChunkAccess.SINK));
            replyChunk = c.segment;
            reply = Optional.of(WriteChunk.of(c.rdmaSegment()));
        }
        return new ChunkLists(readList, writeList, reply);
    }

    private synchronized ChunkMemory.Chunk hold(ChunkMemory.Chunk c) {
        if (revoked != null) { // cannot happen: build runs before the call is visible to anyone else
            Callbacks.whenDone(c.exposure.revoke(), "chunk memory of a call", (v, t) -> memory.release(c));
            throw new IllegalStateException("chunk memory of a call already revoked");
        }
        chunks.add(c);
        return c;
    }

    /**
     * Revokes every chunk's exposure; the future completes (normally) when the server can reach none of them.
     * Idempotent.
     */
    synchronized CompletableFuture<Void> revoke() {
        if (revoked == null) {
            CompletableFuture<?>[] all = new CompletableFuture<?>[chunks.size()];
            for (int i = 0; i < all.length; i++) {
                // a revocation the device refused completes exceptionally: release() then keeps that memory
                all[i] = chunks.get(i).exposure.revoke().exceptionally(t -> null);
            }
            revoked = CompletableFuture.allOf(all);
        }
        return revoked;
    }

    /** Lets the memory go, after {@link #revoke()} completed; idempotent. */
    synchronized void release() {
        if (released) {
            return;
        }
        if (revoked == null || !revoked.isDone()) {
            throw new IllegalStateException("chunk memory released before its revocation completed");
        }
        released = true;
        for (ChunkMemory.Chunk c : chunks) {
            memory.release(c);
        }
        chunks.clear();
    }

    /** {@return how many chunks the call holds (for tests)} */
    synchronized int held() {
        return chunks.size();
    }

    /** {@return the handles of the chunks the call holds (for tests)} */
    synchronized List<Integer> rkeys() {
        return chunks.stream().map(c -> c.exposure.rkey()).toList();
    }
}
