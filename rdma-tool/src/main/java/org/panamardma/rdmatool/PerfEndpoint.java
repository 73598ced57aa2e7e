package org.panamardma.rdmatool;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionChannel;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.QueuePairOptions;
import org.panamardma.verbs.cm.StreamStartProbe;

/**
 * One side's resources on the id's device: a buffer of two halves of {@code maxSize} bytes (the first is where
 * the peer writes and receives land, the second what this side sends, writes from and reads into), one CQ with
 * a completion channel (armed only by {@link #awaitReceiveBlocking}), the queue pair. Nothing on the data path
 * allocates.
 */
final class PerfEndpoint implements AutoCloseable {
    /** The wr_id of every receive (sends count up from 0). */
    private static final long RECV_BIT = 1L << 62;

    private static final VarHandle BYTE = ValueLayout.JAVA_BYTE.varHandle();

    final int maxSize;
    final int sendDepth;
    ProtectionDomain pd;
    CompletionChannel channel;
    CompletionQueue cq;
    MemoryRegion mr;
    QueuePair qp;
    CmId id;
    final WorkCompletions wc = WorkCompletions.allocate(16);
    long sendsPosted;
    long sendsCompleted;
    int receivesArrived;
    long remoteAddress;
    int remoteRkey;

    PerfEndpoint(int maxSize, int sendDepth) {
        this.maxSize = Math.max(maxSize, 8);
        this.sendDepth = sendDepth;
    }

    QueuePair create(CmId cmId) throws RdmaException {
        this.id = cmId;
        Context ctx = cmId.context();
        pd = ctx.allocateProtectionDomain();
        channel = ctx.createCompletionChannel();
        cq = ctx.createCompletionQueue(sendDepth + Perf.RX_DEPTH, channel);
        // the peer writes (write_lat, write_bw), reads (read_lat) and adds (atomic_lat) into it; receives land in it
        mr = pd.allocate(
                2L * maxSize,
                Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ, Access.REMOTE_ATOMIC));
        qp = cmId.createQueuePair(pd, QueuePairOptions.of(cq).withQueueDepths(sendDepth, Perf.RX_DEPTH));
        for (int i = 0; i < Perf.RX_DEPTH; i++) {
            postReceive();
        }
        return qp;
    }

    MemorySegment segment() {
        return mr.segment();
    }

    long sendOffset() {
        return maxSize;
    }

    void postReceive() throws RdmaException {
        qp.postReceive(RECV_BIT, mr, 0, maxSize);
    }

    /** Polls the CQ once; counts completed sends (each signaled one completes through its wr_id) and receives. */
    int pollOnce() throws RdmaException {
        int n = cq.poll(wc);
        for (int i = 0; i < n; i++) {
            wc.check(i);
            long wrId = wc.wrId(i);
            if (wrId == RECV_BIT) {
                receivesArrived++;
            } else {
                sendsCompleted = wrId + 1;
            }
        }
        return n;
    }

    /** Spins until a receive has arrived, consumes it and re-posts its buffer. */
    void awaitReceive(long deadline) throws RdmaException {
        while (receivesArrived == 0) {
            if (pollOnce() == 0) {
                checkDeadline(deadline, "a message from the peer");
            }
        }
        receivesArrived--;
        postReceive();
    }

    /**
     * As {@link #awaitReceive}, but blocked in the kernel between completions (the CQ armed, then a wait on its
     * completion channel): for waits nobody measures, where spinning, or even waking up every millisecond to
     * poll, would take the CPU from the peer that is being measured.
     */
    void awaitReceiveBlocking(long deadline) throws RdmaException {
        while (receivesArrived == 0) {
            if (pollOnce() > 0) {
                continue;
            }
            cq.requestNotification(false);
            // a completion that came between the empty poll and the arming raised no event: look once more
            if (pollOnce() > 0) {
                continue;
            }
            checkDeadline(deadline, "a message from the peer");
            long leftMillis = Math.max(1, (deadline - System.nanoTime()) / 1_000_000L);
            channel.await(Math.min(leftMillis, 1_000));
        }
        receivesArrived--;
        postReceive();
    }

    /**
     * {@link StreamStartProbe} on this side's queue pair: zero-length READs of the peer's buffer, the next one
     * after each wait without an answer, until one is answered; then waits for all of them, so that the tests
     * start with every request completed.
     */
    void confirmStreamStart(long deadline) throws RdmaException {
        long first = sendsPosted;
        long wait = StreamStartProbe.FIRST_WAIT_NANOS;
        while (sendsCompleted <= first) {
            if (sendsPosted - first < StreamStartProbe.MAX_PROBES) {
                awaitSendSlot(deadline);
                qp.postRead(sendsPosted++, mr, sendOffset(), 0, remoteAddress, remoteRkey, SendFlags.SIGNALED);
            }
            long until = System.nanoTime() + wait;
            while (sendsCompleted <= first && System.nanoTime() - until < 0) {
                if (pollOnce() == 0) {
                    checkDeadline(deadline, "the answer to a zero-length READ (the stream start probe)");
                }
            }
            wait = StreamStartProbe.nextWaitNanos(wait);
        }
        if (sendsPosted - first > 1) {
            Perf.STREAM_STARTS_REPROBED.incrementAndGet();
        }
        awaitSends(deadline);
    }

    /** Spins until every posted send request has completed. */
    void awaitSends(long deadline) throws RdmaException {
        while (sendsCompleted < sendsPosted) {
            if (pollOnce() == 0) {
                checkDeadline(deadline, "the completion of send request " + (sendsPosted - 1));
            }
        }
    }

    /** Waits for a free send slot (signaled requests are freed by their completion). */
    void awaitSendSlot(long deadline) throws RdmaException {
        while (sendsPosted - sendsCompleted >= sendDepth) {
            if (pollOnce() == 0) {
                checkDeadline(deadline, "a free send queue slot");
            }
        }
    }

    void send(int length, long deadline) throws RdmaException {
        awaitSendSlot(deadline);
        qp.postSend(sendsPosted++, mr, sendOffset(), length, SendFlags.SIGNALED);
    }

    /**
     * Throws ETIMEDOUT once {@code deadline} has passed, naming what was awaited and this side's state: the
     * QP's state as the device reports it and the counts of sends posted and completed and receives consumed,
     * so a run that stalls says where (a request posted but never completed, or never posted at all).
     */
    void checkDeadline(long deadline, String what) throws RdmaException {
        if (System.nanoTime() - deadline > 0) {
            throw new RdmaException(
                    "perf: timed out waiting for " + what + " (" + describe() + ")", 110 /* ETIMEDOUT */);
        }
    }

    String describe() {
        String state;
        try {
            state = qp == null ? "none" : qp.state().toString();
        } catch (RdmaException | RuntimeException e) {
            state = "unknown: " + e.getMessage();
        }
        return "QP " + (qp == null ? "-" : qp.qpNumber()) + " state " + state + ", sends posted " + sendsPosted
                + ", completed " + sendsCompleted + ", receives waiting " + receivesArrived;
    }

    @Override
    public void close() {
        if (id != null) {
            id.close();
        }
        for (AutoCloseable r : new AutoCloseable[] {mr, cq, channel, pd, wc}) {
            if (r != null) {
                try {
                    r.close();
                } catch (Exception | Error e) {
                    // closing what is already gone with its parent context
                }
            }
        }
    }

    /** Spins until the byte at {@code offset} of {@code seg} is {@code expected} (a volatile read each time). */
    static void awaitByte(PerfEndpoint ep, MemorySegment seg, long offset, byte expected, long deadline)
            throws RdmaException {
        int spins = 0;
        while ((byte) BYTE.getVolatile(seg, offset) != expected) {
            if ((++spins & 0x3ff) == 0 && System.nanoTime() - deadline > 0) {
                ep.checkDeadline(
                        deadline,
                        "the peer's RDMA WRITE (byte " + offset + " to become " + (expected & 0xff) + ", it is "
                                + ((byte) BYTE.getVolatile(seg, offset) & 0xff) + ")");
            }
            Thread.onSpinWait();
        }
    }
}
