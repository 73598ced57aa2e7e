package org.panamardma.rdmatool;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SendFlags;

/**
 * The measured loops, perftest's own, on one side's {@link PerfEndpoint}: the client and the server run the same
 * loop of a ping-pong test ({@code server} says which side this is); the client alone runs read_lat, atomic_lat
 * and write_bw. Nothing here allocates per iteration.
 */
final class PerfLoops {
    private PerfLoops() {}

    /**
     * ib_send_lat's loop: the client SENDs then waits for the reply; the server waits then SENDs back. Returns the
     * client's post stamps.
     */
    static long[] sendLatency(PerfEndpoint ep, int size, int iters, boolean server, long deadline)
            throws RdmaException {
        long[] stamps = new long[iters];
        for (int i = 0; i < iters; i++) {
            if (server) {
                ep.awaitReceive(deadline);
                ep.send(size, deadline);
            } else {
                stamps[i] = System.nanoTime();
                ep.send(size, deadline);
                ep.awaitReceive(deadline);
            }
        }
        ep.awaitSends(deadline);
        return stamps;
    }

    /**
     * ib_write_lat's {@code run_iter_lat_write}: each side writes {@code size} bytes whose last byte is its count
     * of writes, then spins on its own buffer's byte {@code size - 1} for the peer's next count. The client
     * starts; the server first waits.
     */
    static long[] writeLatency(PerfEndpoint ep, int size, int iters, boolean server, long deadline)
            throws RdmaException {
        long[] stamps = new long[iters];
        MemorySegment seg = ep.segment();
        long pollOffset = size - 1;
        long postLast = ep.sendOffset() + size - 1;
        int scnt = 0;
        int rcnt = 0;
        long completedBefore = ep.sendsCompleted;
        while (scnt < iters || ep.sendsCompleted - completedBefore < iters || rcnt < iters) {
            if (rcnt < iters && !(scnt < 1 && !server)) {
                rcnt++;
                PerfEndpoint.awaitByte(ep, seg, pollOffset, (byte) rcnt, deadline);
            }
            if (scnt < iters) {
                stamps[scnt] = System.nanoTime();
                seg.set(ValueLayout.JAVA_BYTE, postLast, (byte) ++scnt);
                ep.awaitSendSlot(deadline);
                ep.qp.postWrite(
                        ep.sendsPosted++,
                        ep.mr,
                        ep.sendOffset(),
                        size,
                        ep.remoteAddress,
                        ep.remoteRkey,
                        SendFlags.SIGNALED);
            }
            if (ep.sendsCompleted - completedBefore < iters) {
                while (ep.pollOnce() == 0) {
                    ep.checkDeadline(deadline, "an RDMA WRITE completion");
                }
            }
        }
        return stamps;
    }

    /** ib_read_lat / ib_atomic_lat: one READ (or FetchAdd) at a time, spinning on the CQ. */
    static long[] readLatency(PerfEndpoint ep, int size, int iters, boolean atomic, long deadline)
            throws RdmaException {
        long[] stamps = new long[iters];
        for (int i = 0; i < iters; i++) {
            stamps[i] = System.nanoTime();
            long wrId = ep.sendsPosted++;
            if (atomic) {
                ep.qp.postFetchAdd(
                        wrId, ep.mr, ep.sendOffset(), ep.remoteAddress, ep.remoteRkey, 1L, SendFlags.SIGNALED);
            } else {
                ep.qp.postRead(wrId, ep.mr, ep.sendOffset(), size, ep.remoteAddress, ep.remoteRkey, SendFlags.SIGNALED);
            }
            ep.awaitSends(deadline);
        }
        return stamps;
    }

    /**
     * ib_write_bw: up to {@value Perf#TX_DEPTH} WRITEs in flight, every {@value Perf#CQ_MOD}th and the last signaled (a
     * signaled completion also retires the unsignaled requests before it).
     */
    static Perf.Result writeBandwidth(PerfEndpoint ep, int size, int iters, long deadline) throws RdmaException {
        long base = ep.sendsPosted;
        long end = base + iters;
        int depth = Math.min(Perf.TX_DEPTH, ep.sendDepth);
        int cqMod = Math.min(Perf.CQ_MOD, depth);
        long t0 = System.nanoTime();
        while (ep.sendsCompleted < end) {
            while (ep.sendsPosted < end && ep.sendsPosted - ep.sendsCompleted < depth) {
                long n = ep.sendsPosted - base;
                int flags = (n % cqMod == cqMod - 1 || ep.sendsPosted == end - 1) ? SendFlags.SIGNALED : SendFlags.NONE;
                ep.qp.postWrite(ep.sendsPosted++, ep.mr, ep.sendOffset(), size, ep.remoteAddress, ep.remoteRkey, flags);
            }
            if (ep.pollOnce() == 0) {
                ep.checkDeadline(deadline, "RDMA WRITE completions");
            }
        }
        long t1 = System.nanoTime();
        double seconds = (t1 - t0) / 1e9;
        double bw = (double) size * iters / seconds / 1048576.0;
        return new Perf.Result(Perf.Test.WRITE_BW, size, iters, null, bw, iters / seconds / 1e6);
    }
}
