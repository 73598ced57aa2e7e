package org.panamardma.rpcrdma.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.panamardma.verbs.connection.RdmaConnection.ChainedWrite;

/**
 * A reply's RDMA Writes (its Write list items and Reply chunk), staged in registered memory by {@link CallTransfers}
 * and handed with the reply to be posted before its Send ({@link org.panamardma.verbs.connection.RdmaConnection#writesThenSend}); the memory they
 * hold goes back, once, when the Send completes or fails ({@link #release()}), as svcrdma frees a reply's pages on
 * its Send's completion (svc_rdma_wc_send). Thread-safe release.
 */
final class StagedWrites {
    /** A reply with nothing written: a plain Send. */
    static final StagedWrites NONE = new StagedWrites(List.of(), List.of(), 0);

    private final List<ChainedWrite> writes;
    private final List<Runnable> releases;
    private final long bytes;
    private final AtomicBoolean released = new AtomicBoolean();

    StagedWrites(List<ChainedWrite> writes, List<Runnable> releases, long bytes) {
        this.writes = List.copyOf(writes);
        this.releases = List.copyOf(releases);
        this.bytes = bytes;
    }

    /** {@return the WRITE work requests, in the order they must reach the peer} */
    List<ChainedWrite> writes() {
        return writes;
    }

    /** {@return the bytes they move} */
    long bytes() {
        return bytes;
    }

    boolean isEmpty() {
        return writes.isEmpty();
    }

    /** Gives back the memory and the budget it held; later calls do nothing. */
    void release() {
        if (!released.compareAndSet(false, true)) {
            return;
        }
        RuntimeException first = null;
        for (Runnable r : releases) {
            try {
                r.run();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** Collects one reply's writes. Not thread-safe: one call, one thread. */
    static final class Builder {
        private final List<ChainedWrite> writes = new ArrayList<>();
        private final List<Runnable> releases = new ArrayList<>();
        private long bytes;

        void add(ChainedWrite w) {
            writes.add(w);
            bytes += w.length();
        }

        void onRelease(Runnable r) {
            releases.add(r);
        }

        boolean isEmpty() {
            return writes.isEmpty() && releases.isEmpty();
        }

        StagedWrites build() {
            return new StagedWrites(writes, releases, bytes);
        }
    }
}
