package org.panamardma.verbs.extensions;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.RemoteRegion;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WorkCompletions;

/**
 * A peer's 64-bit word, compare-and-swapped with RDMA ATOMIC CMP AND SWAP through a connected queue pair, waiting
 * for each completion: the {@link RemoteWord} that {@link MaskedAtomics} runs on. The QP's send CQ must be this
 * object's alone while it is used (see {@code Completions}); not thread-safe (one per thread and QP).
 */
public final class QueuePairRemoteWord implements RemoteWord, AutoCloseable {
    private final QueuePair qp;
    private final long remoteAddress;
    private final int rkey;
    private final MemoryRegion result;
    private final WorkCompletions wc = WorkCompletions.allocate(1);
    private final long timeoutNanos;
    private long nextWrId = 1;

    /**
     * The word {@code remote} at the peer of {@code qp}, each compare-and-swap waiting up to {@code timeout}.
     *
     * @param qp      a connected QP whose device has atomics
     * @param remote  the 8-byte word (8-byte aligned) at the peer, in a region with remote atomic access
     * @param timeout how long each atomic may wait for its completion before it is an {@link RdmaException}
     * @throws RdmaException if registering the 8-byte result buffer fails ({@code ibv_reg_mr}'s errno)
     * @throws IllegalArgumentException if {@code remote} is shorter than 8 bytes or not 8-byte aligned
     */
    public QueuePairRemoteWord(QueuePair qp, RemoteRegion remote, Duration timeout) throws RdmaException {
        if (remote.length() < 8 || (remote.address() & 7) != 0) {
            throw new IllegalArgumentException("a remote word is 8 bytes at an 8-byte aligned address: " + remote);
        }
        this.qp = qp;
        this.remoteAddress = remote.address();
        this.rkey = remote.rkey();
        this.timeoutNanos = timeout.toNanos();
        this.result = qp.protectionDomain().allocate(8, Set.of(Access.LOCAL_WRITE));
    }

    @Override
    public long compareSwap(long expected, long desired) throws RdmaException {
        long wrId = nextWrId++;
        qp.postCompareSwap(wrId, result, 0, remoteAddress, rkey, expected, desired, SendFlags.SIGNALED);
        Completions.await(qp, wc, wrId, timeoutNanos);
        return result.segment().get(ValueLayout.JAVA_LONG, 0);
    }

    /**
     * Native FetchAdd on the same word (no mask), for comparison and for plain counters.
     *
     * @param add the value added (two's complement, wraps at 64 bits)
     * @return the word's value before the add
     * @throws RdmaException if {@code ibv_post_send} fails (ENOMEM: send queue full), the completion is an error (a
     *                       {@link org.panamardma.verbs.WorkCompletionException}) or does not come in time
     */
    public long fetchAdd(long add) throws RdmaException {
        long wrId = nextWrId++;
        qp.postFetchAdd(wrId, result, 0, remoteAddress, rkey, add, SendFlags.SIGNALED);
        Completions.await(qp, wc, wrId, timeoutNanos);
        return result.segment().get(ValueLayout.JAVA_LONG, 0);
    }

    @Override
    public void close() {
        wc.close();
        result.close();
    }
}
