package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.rpcrdma.client.RegistrationCache.ChunkAccess;
import org.panamardma.verbs.RdmaException;

/**
 * The chunk memory of one call: what {@link #build} exposes for the plan's Read list, Write list and Reply chunk,
 * held until the call lets go of it.
 *
 * <p>Letting go comes in two forms. {@link #release()}: the call ended with a reply (the server has finished its
 * RDMA Reads and Writes before it replies, RFC 8166 section 3.5.2), an RDMA_ERROR, before it was sent, or with the
 * connection (a queue pair in the error state makes no further access). {@link #abandon()}: the call timed out after
 * it was sent, so the server may still read or write its chunks: the caller's memory registered in place is
 * invalidated (deregistered once no other call uses it, so the caller may free it), and pool memory, which other
 * calls would reuse, stays held until {@link #releaseHeld()} when the late reply comes or the connection ends.
 */
final class CallChunks {
    private enum State { ACTIVE, HELD, HELD_RELEASE_REQUESTED, RELEASED }

    private final ChunkMemory memory;
    private final List<ChunkMemory.Chunk> chunks = new ArrayList<>(2);
    /** Per placement target: the pool memory the server writes instead of a heap target, or null. */
    final List<MemorySegment> bounces = new ArrayList<>();
    /** The Reply chunk's memory, or null. */
    MemorySegment replyChunk;
    private State state = State.ACTIVE;

    CallChunks(ChunkMemory memory) {
        this.memory = memory;
    }

    /**
     * Exposes the plan's chunk memory with the least rights needed (REMOTE_READ for Read chunks, LOCAL_WRITE and
     * REMOTE_WRITE for Write and Reply chunks) and returns the chunk lists of the call's transport header.
     */
    ChunkLists build(CallPlan plan, ReplyExpectation expectation) throws RdmaException {
        List<ReadSegment> readList = new ArrayList<>();
        switch (plan.kind()) {
            case INLINE -> {
            }
            case READ_CHUNKS -> {
                for (CallPlan.ReadItem item : plan.readItems()) {
                    // RFC 8166 section 3.4.5.2: the position is the item's XDR position in the whole call
                    readList.add(new ReadSegment(Math.toIntExact(item.position()),
                            hold(memory.expose(item.data(), ChunkAccess.SOURCE)).rdmaSegment()));
                }
            }
            // RFC 8166 section 3.5.3: a Long Call sends the whole RPC call in a position-zero Read chunk
            case POSITION_ZERO -> readList.add(new ReadSegment(0,
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
        if (state != State.ACTIVE) { // cannot happen: build runs before the call is visible to anyone else
            memory.release(c, false);
            throw new IllegalStateException("chunk memory of a call already let go");
        }
        chunks.add(c);
        return c;
    }

    /** Lets go of everything; idempotent. */
    synchronized void release() {
        if (state == State.RELEASED) {
            return;
        }
        for (ChunkMemory.Chunk c : chunks) {
            if (state != State.HELD || c.pooled()) { // HELD: only the pool memory is left
                memory.release(c, false);
            }
        }
        chunks.clear();
        state = State.RELEASED;
    }

    /** The call timed out after it was sent: see the class comment. */
    synchronized void abandon() {
        if (state == State.HELD_RELEASE_REQUESTED) { // the late reply came first: the server is done
            state = State.ACTIVE;
            release();
            return;
        }
        if (state != State.ACTIVE) {
            return;
        }
        for (ChunkMemory.Chunk c : chunks) {
            if (!c.pooled()) {
                memory.release(c, true);
            }
        }
        state = State.HELD;
    }

    /** The server is done with an abandoned call's memory (its late reply came, or the connection ended). */
    synchronized void releaseHeld() {
        switch (state) {
            case HELD -> release();
            case ACTIVE -> state = State.HELD_RELEASE_REQUESTED;
            default -> {
            }
        }
    }

    /** @return how many chunks the call holds (for tests) */
    synchronized int held() {
        return chunks.size();
    }
}
