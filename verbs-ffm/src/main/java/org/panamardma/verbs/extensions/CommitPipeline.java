package org.panamardma.verbs.extensions;

import java.time.Duration;
import org.panamardma.verbs.FlushScope;
import org.panamardma.verbs.FlushType;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaCore;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.RemoteRegion;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WorkCompletionException;
import org.panamardma.verbs.WorkCompletions;

/**
 * The transaction of draft-talpey-rdma-commit section 3 (Requirements for RDMA Verify): WRITE the data, FLUSH it
 * (to persistence or global visibility), VERIFY it, and only then ATOMIC WRITE a commit word that marks it valid.
 * It stops at the first failing step, so the commit word is written only over data that was placed, made durable
 * and read back intact.
 *
 * <p>WRITE and FLUSH are posted back to back (no bubble). VERIFY is {@link EmulatedVerify emulated}, so the
 * ATOMIC WRITE waits for its answer: one round trip more than the draft's pipeline.
 */
public final class CommitPipeline {
    private CommitPipeline() {}

    /** The steps, in order. */
    public enum Step {
        /** The RDMA WRITE of the data. */
        WRITE,
        /** The RDMA FLUSH that makes it persistent or visible. */
        FLUSH,
        /** The VERIFY of what landed. */
        VERIFY,
        /** The RDMA ATOMIC WRITE that publishes it. */
        ATOMIC_WRITE
    }

    /** Called after each successful step (for logging and for tests that meddle between steps). */
    @FunctionalInterface
    public interface StepListener {
        /**
         * Step {@code step} completed.
         *
         * @param step the step that just completed; the next is not posted until this returns
         * @throws RdmaException to abort the pipeline: it propagates out of {@link CommitPipeline#run} and no later
         *                       step is posted (the commit word is then not written)
         */
        void completed(Step step) throws RdmaException;
    }

    /**
     * How it ended: committed, or the first step that failed and why.
     *
     * @param failedStep the first step whose completion failed, or {@code null} when all four completed
     * @param cause      why it failed: the {@link org.panamardma.verbs.WorkCompletionException} of WRITE, FLUSH or
     *                   ATOMIC WRITE, or VERIFY's mismatch; {@code null} when committed
     */
    public record Outcome(Step failedStep, Exception cause) {
        /**
         * {@return whether every step completed (no step failed): only then does the commit word hold the new value}
         */
        public boolean committed() {
            return failedStep == null;
        }
    }

    /**
     * Runs the pipeline through {@code qp} (whose send CQ it polls; nobody else may meanwhile).
     *
     * @param qp           a connected RC queue pair; its send CQ must be this call's alone until it returns (a
     *                     completion of another request there is an {@link IllegalStateException})
     * @param verify       the verifier that reads the range back; also decides the hash compared
     * @param sourceMr     the data: {@code length} bytes of it at {@code sourceOffset}
     * @param sourceOffset where the data starts in {@code sourceMr}, in bytes
     * @param length       bytes to write, flush and verify; at most {@code target.length()} and the verifier's maximum
     * @param target       where it goes at the peer (a region granting remote write, the flush type's access and remote
     *                     read)
     * @param flushType    the FLUSH's placement type: persistence or global visibility (IBTA 1.5 memory placement
     *                     extensions)
     * @param commitWord   the peer's 8-byte commit word (remote write; 8-byte aligned)
     * @param commitValue  what the commit word becomes when everything before succeeded
     * @param timeout      how long to wait for each step's completion; past it, an {@link RdmaException} naming the
     *                     QP's state
     * @param listener     told after each successful step, before the next is posted
     * @return the outcome: committed, or the step that failed first and its cause (a failed completion is reported
     *         here, not thrown)
     * @throws UnsupportedOperationException before anything is posted, if the installed rdma-core or the device cannot
     *                                       FLUSH or ATOMIC WRITE (the message says which)
     * @throws RdmaException if a post fails (the errno of {@code ibv_post_send}, e.g. ENOMEM when the send queue is
     *                       full), a step's completion does not come within {@code timeout}, or {@code listener} throws
     * @throws IllegalArgumentException if {@code target} is shorter than {@code length}, before anything is posted
     */
    public static Outcome run(
            QueuePair qp,
            EmulatedVerify verify,
            MemoryRegion sourceMr,
            long sourceOffset,
            int length,
            RemoteRegion target,
            FlushType flushType,
            RemoteRegion commitWord,
            long commitValue,
            Duration timeout,
            StepListener listener)
            throws RdmaException {
        if (target.length() < length) {
            throw new IllegalArgumentException("target " + target + " is smaller than " + length + " bytes");
        }
        // refused before the WRITE is posted: the library's reason first, then the device's
        RdmaCore.Feature.FLUSH.require();
        RdmaCore.Feature.ATOMIC_WRITE.require();
        if (!qp.supportsFlush() || !qp.supportsAtomicWrite()) {
            throw new UnsupportedOperationException("the commit pipeline needs RDMA FLUSH and ATOMIC WRITE; "
                    + qp.deviceName() + " lacks "
                    + (qp.supportsFlush() ? "ATOMIC WRITE" : qp.supportsAtomicWrite() ? "FLUSH" : "both")
                    + " (DeviceAttributes.supportsFlushGlobal, supportsAtomicWrite)");
        }
        long timeoutNanos = timeout.toNanos();
        try (WorkCompletions wc = WorkCompletions.allocate(1)) {
            byte[] expected = verify.algorithm().digest(sourceMr.segment().asSlice(sourceOffset, length));
            long writeId = 1;
            long flushId = 2;
            qp.postWrite(writeId, sourceMr, sourceOffset, length, target.address(), target.rkey(), SendFlags.SIGNALED);
            qp.postFlush(
                    flushId, target.address(), target.rkey(), length, flushType, FlushScope.RANGE, SendFlags.SIGNALED);
            // both completions come in order; the first failure names the step
            WorkCompletionException writeFailure = Completions.awaitOutcome(qp, wc, writeId, timeoutNanos);
            WorkCompletionException flushFailure = Completions.awaitOutcome(qp, wc, flushId, timeoutNanos);
            if (writeFailure != null) {
                return new Outcome(Step.WRITE, writeFailure);
            }
            listener.completed(Step.WRITE);
            if (flushFailure != null) {
                return new Outcome(Step.FLUSH, flushFailure);
            }
            listener.completed(Step.FLUSH);
            try {
                verify.verify(target.slice(0, length), expected);
            } catch (RdmaException e) {
                return new Outcome(Step.VERIFY, e);
            }
            listener.completed(Step.VERIFY);
            long commitId = 3;
            qp.postAtomicWrite(commitId, commitWord.address(), commitWord.rkey(), commitValue, SendFlags.SIGNALED);
            WorkCompletionException commitFailure = Completions.awaitOutcome(qp, wc, commitId, timeoutNanos);
            if (commitFailure != null) {
                return new Outcome(Step.ATOMIC_WRITE, commitFailure);
            }
            listener.completed(Step.ATOMIC_WRITE);
            return new Outcome(null, null);
        }
    }
}
