package org.panamardma.rpcrdma.server;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of how calls arrived and how they were answered, over all connections of a server: what tests assert to
 * know which protocol path a call took.
 */
public final class ServerStatistics {
    private final Map<CallAssembler.CallPath, LongAdder> calls = new EnumMap<>(CallAssembler.CallPath.class);
    private final Map<ReplyPath, LongAdder> replies = new EnumMap<>(ReplyPath.class);
    private final LongAdder memoryRefusals = new LongAdder();
    private final LongAdder idleTimeouts = new LongAdder();
    private final LongAdder transferTimeouts = new LongAdder();
    private final AtomicInteger peakCallsInProgress = new AtomicInteger();

    /** Counts from zero. */
    public ServerStatistics() {
        for (CallAssembler.CallPath p : CallAssembler.CallPath.values()) {
            calls.put(p, new LongAdder());
        }
        for (ReplyPath p : ReplyPath.values()) {
            replies.put(p, new LongAdder());
        }
    }

    void call(CallAssembler.CallPath path) {
        calls.get(path).increment();
    }

    void reply(ReplyPath path) {
        replies.get(path).increment();
    }

    void memoryRefusal() {
        memoryRefusals.increment();
    }

    void idleTimeout() {
        idleTimeouts.increment();
    }

    void transferTimeout() {
        transferTimeouts.increment();
    }

    /** {@return connections closed because no call was taken or in progress on them for the idle timeout} */
    public long idleTimeouts() {
        return idleTimeouts.sum();
    }

    /** {@return connections closed because a chunk's RDMA Reads or Writes did not complete within their deadline} */
    public long transferTimeouts() {
        return transferTimeouts.sum();
    }

    void callsInProgress(int n) {
        peakCallsInProgress.accumulateAndGet(n, Math::max);
    }

    /** {@return calls answered ERR_CHUNK because the memory they needed could not be had within the wait} */
    public long memoryRefusals() {
        return memoryRefusals.sum();
    }

    /** {@return the most calls ever in progress at once on one connection (at most the credits granted)} */
    public int peakCallsInProgress() {
        return peakCallsInProgress.get();
    }

    /** {@return calls received wholly inline} */
    public long inlineCalls() {
        return calls.get(CallAssembler.CallPath.INLINE).sum();
    }

    /** {@return calls received inline with Read chunks inserted} */
    public long readChunkCalls() {
        return calls.get(CallAssembler.CallPath.READ_CHUNKS).sum();
    }

    /** {@return calls received in a position-zero Read chunk (RDMA_NOMSG)} */
    public long positionZeroCalls() {
        return calls.get(CallAssembler.CallPath.POSITION_ZERO).sum();
    }

    /**
     * {@return messages answered (or dropped) by {@code path}}
     *
     * @param path a reply path
     */
    public long replies(ReplyPath path) {
        return replies.get(path).sum();
    }

    @Override
    public String toString() {
        return "calls " + calls + ", replies " + replies + ", memory refusals " + memoryRefusals.sum()
                + ", peak calls in progress " + peakCallsInProgress.get() + ", idle timeouts " + idleTimeouts.sum()
                + ", transfer timeouts " + transferTimeouts.sum();
    }
}
