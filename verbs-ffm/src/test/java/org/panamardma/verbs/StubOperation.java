package org.panamardma.verbs;

import org.panamardma.verbs.ffi.StubProvider;

/**
 * Every kind of send the typed API posts, as one signaled request on a {@link StubLoopback}, with the completion
 * opcode it must produce and the C loop's number for it (stub_bench.c; -1 where the C loop has none). What the
 * data-path allocation test runs, and the benchmark's list of operations.
 */
public enum StubOperation {
    SEND(WcOpcode.SEND, StubProvider.OP_SEND) {
        @Override
        void post(StubLoopback l, long wrId) throws RdmaException {
            l.qp.postSend(wrId, l.local, StubLoopback.DATA, StubLoopback.LENGTH, SendFlags.SIGNALED);
        }
    },
    SEND_WITH_IMMEDIATE(WcOpcode.SEND, -1) {
        @Override
        void post(StubLoopback l, long wrId) throws RdmaException {
            l.qp.postSendWithImmediate(wrId, l.local, StubLoopback.DATA, StubLoopback.LENGTH, 7, SendFlags.SIGNALED);
        }
    },
    SEND_INLINE(WcOpcode.SEND, -1) {
        @Override
        void post(StubLoopback l, long wrId) throws RdmaException {
            l.qp.postSendInline(wrId, l.inlineData, SendFlags.SIGNALED);
        }
    },
    SEND_SGL(WcOpcode.SEND, -1) {
        @Override
        void post(StubLoopback l, long wrId) throws RdmaException {
            l.qp.postSend(wrId, l.sgl, SendFlags.SIGNALED);
        }
    },
    WRITE(WcOpcode.RDMA_WRITE, StubProvider.OP_WRITE) {
        @Override
        void post(StubLoopback l, long wrId) throws RdmaException {
            l.qp.postWrite(
                    wrId,
                    l.local,
                    StubLoopback.DATA,
                    StubLoopback.LENGTH,
                    l.remote.address(),
                    l.remote.rkey(),
                    SendFlags.SIGNALED);
        }
    },
    WRITE_WITH_IMMEDIATE(WcOpcode.RDMA_WRITE, -1) {
        @Override
        void post(StubLoopback l, long wrId) throws RdmaException {
            l.qp.postWriteWithImmediate(
                    wrId,
                    l.local,
                    StubLoopback.DATA,
                    StubLoopback.LENGTH,
                    l.remote.address(),
                    l.remote.rkey(),
                    7,
                    SendFlags.SIGNALED);
        }
    },
    READ(WcOpcode.RDMA_READ, StubProvider.OP_READ) {
        @Override
        void post(StubLoopback l, long wrId) throws RdmaException {
            l.qp.postRead(
                    wrId,
                    l.local,
                    StubLoopback.DATA,
                    StubLoopback.LENGTH,
                    l.remote.address(),
                    l.remote.rkey(),
                    SendFlags.SIGNALED);
        }
    },
    COMPARE_SWAP(WcOpcode.COMP_SWAP, -1) {
        @Override
        void post(StubLoopback l, long wrId) throws RdmaException {
            l.qp.postCompareSwap(
                    wrId,
                    l.local,
                    StubLoopback.ATOMIC_RESULT,
                    l.remote.address(),
                    l.remote.rkey(),
                    0L,
                    1L,
                    SendFlags.SIGNALED);
        }
    },
    FETCH_ADD(WcOpcode.FETCH_ADD, StubProvider.OP_FETCH_ADD) {
        @Override
        void post(StubLoopback l, long wrId) throws RdmaException {
            l.qp.postFetchAdd(
                    wrId,
                    l.local,
                    StubLoopback.ATOMIC_RESULT,
                    l.remote.address(),
                    l.remote.rkey(),
                    1L,
                    SendFlags.SIGNALED);
        }
    },
    FLUSH(WcOpcode.FLUSH, StubProvider.OP_FLUSH) {
        @Override
        void post(StubLoopback l, long wrId) throws RdmaException {
            l.qp.postFlush(
                    wrId,
                    l.remote.address(),
                    l.remote.rkey(),
                    StubLoopback.LENGTH,
                    FlushType.GLOBAL_VISIBILITY,
                    FlushScope.RANGE,
                    SendFlags.SIGNALED);
        }
    },
    ATOMIC_WRITE(WcOpcode.ATOMIC_WRITE, StubProvider.OP_ATOMIC_WRITE) {
        @Override
        void post(StubLoopback l, long wrId) throws RdmaException {
            l.qp.postAtomicWrite(wrId, l.remote.address(), l.remote.rkey(), 42L, SendFlags.SIGNALED);
        }
    };

    private final WcOpcode completion;
    private final int cOp;

    StubOperation(WcOpcode completion, int cOp) {
        this.completion = completion;
        this.cOp = cOp;
    }

    /** Posts one signaled request with {@code wrId} on the loopback QP. */
    abstract void post(StubLoopback l, long wrId) throws RdmaException;

    /** {@link #post}, for the benchmarks (another package). */
    public void postOn(StubLoopback l, long wrId) throws RdmaException {
        post(l, wrId);
    }

    /** The opcode of its completion. */
    public WcOpcode completion() {
        return completion;
    }

    /** Its number in stub_bench.c's enum stub_bench_op, or -1 if the C loop does not post it. */
    public int cOp() {
        return cOp;
    }

    /** FLUSH and ATOMIC WRITE exist only in the extended API (ibv_wr_flush, ibv_wr_atomic_write). */
    public boolean onLegacyPath() {
        return this != FLUSH && this != ATOMIC_WRITE;
    }
}
