package org.panamardma.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * What keeps a queue pair's native side from being freed under a post: the {@link CallGate} every post and receive
 * passes (one at a time, and none after close: instead of the QP's monitor), the scratch both paths write their
 * requests into, and the QP's destruction, which waits for that gate and then frees in the one safe order.
 */
final class QueuePairGuard {
    /** Admits the posts and receives one at a time, and none after {@link #destroy}. */
    final CallGate gate = new CallGate();
    /** The scratch of both paths: native memory owned by the QP, freed only after the gate is closed. */
    final Arena scratch = Arena.ofShared();
    /** rdma_destroy_qp for a QP that rdma_cm made; null: ibv_destroy_qp. */
    private final Runnable destroyHook;

    QueuePairGuard(Runnable destroyHook) {
        this.destroyHook = destroyHook;
    }

    /**
     * Destroys the QP {@code qp} of {@code context} once no post or receive is in progress, and none can start: the
     * gate closes first (a post still running after {@link CallGate#CLOSE_TIMEOUT_NANOS} leaves the QP and its memory
     * allocated rather than freed under it), then the QP is untracked and destroyed, then the scratch freed.
     */
    void destroy(Context context, MemorySegment qp, String what) {
        if (!gate.close(CallGate.CLOSE_TIMEOUT_NANOS)) {
            throw new IllegalStateException(what + ": a post did not return within "
                    + CallGate.CLOSE_TIMEOUT_NANOS / 1_000_000_000 + " s; the QP and its memory are left allocated "
                    + "rather than freed under it");
        }
        context.untrack(qp);
        try {
            if (destroyHook != null) {
                destroyHook.run();
            } else {
                int rc = verbs_h.ibv_destroy_qp(qp);
                if (rc != 0) {
                    throw new IllegalStateException("ibv_destroy_qp failed: " + Errno.name(rc));
                }
            }
        } finally {
            scratch.close();
        }
    }
}
