package org.panamardma.verbs.extensions;

import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.RemoteRegion;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WorkCompletions;

/**
 * RDMA VERIFY of draft-talpey-rdma-commit (section 4.3: "requests that all bytes in a specified region are to be
 * read from the underlying storage and that an integrity hash be calculated"), <b>emulated</b>: no RNIC implements
 * VERIFY, so this reads the range with an RDMA READ and hashes it here.
 *
 * <p>What is kept: the ordering. The READ is posted with {@link SendFlags#FENCE}, so it starts only after every
 * earlier READ, atomic and FLUSH of the same queue pair has completed — VERIFY "is ordered after the successful
 * completion of any previous requested RDMA Write and RDMA Flush". What differs from the real operation: the
 * bytes cross the network (the draft's point is that they need not), the responder's CPU caches are not bypassed
 * (the data is what a READ returns after the FLUSH), and a mismatch is reported to the caller instead of
 * terminating the connection — so a following ATOMIC WRITE must wait for the answer (a pipeline bubble; see
 * {@link CommitPipeline}).
 */
public final class EmulatedVerify implements AutoCloseable {
    private final QueuePair qp;
    private final VerifyHash hash;
    private final MemoryRegion scratch;
    private final WorkCompletions wc = WorkCompletions.allocate(1);
    private final long timeoutNanos;
    private long nextWrId = 1L << 62;

    /**
     * A verifier of ranges up to {@code maxLength} bytes, reading through {@code qp} (whose send CQ it polls).
     *
     * @param qp        the connected QP the RDMA READs go through; its send CQ must be this verifier's alone while it
     *                  reads
     * @param maxLength the largest range it can verify, in bytes: the size of the local scratch region it registers now
     * @param hash      the hash compared (the draft leaves the algorithm to the upper layer)
     * @param timeout   how long each read-back may take before it is an {@link RdmaException}
     * @throws RdmaException if registering the scratch region fails ({@code ibv_reg_mr}'s errno: ENOMEM past the
     *                       locked-memory limit)
     */
    public EmulatedVerify(QueuePair qp, int maxLength, VerifyHash hash, Duration timeout) throws RdmaException {
        this.qp = qp;
        this.hash = hash;
        this.timeoutNanos = timeout.toNanos();
        this.scratch = qp.protectionDomain().allocate(maxLength, Set.of(Access.LOCAL_WRITE));
    }

    /** {@return the hash this emulation computes} */
    public VerifyHash algorithm() {
        return hash;
    }

    /**
     * Reads {@code range} (after everything before it on the QP) and returns its hash.
     *
     * @param range the peer's bytes to read back (remote read access), at most the verifier's maximum length
     * @return the digest of the bytes read, as {@link VerifyHash#digest} computes it (a fresh array)
     * @throws RdmaException if the RDMA READ cannot be posted, completes in error (a
     *                       {@link org.panamardma.verbs.WorkCompletionException}, e.g. REM_ACCESS_ERR for a wrong rkey)
     *                       or does not complete in time
     * @throws IllegalArgumentException if {@code range} is longer than this verifier's maximum
     */
    public byte[] hash(RemoteRegion range) throws RdmaException {
        if (range.length() > scratch.length()) {
            throw new IllegalArgumentException(
                    "VERIFY of " + range.length() + " bytes exceeds this verifier's " + scratch.length());
        }
        long wrId = nextWrId++;
        qp.postRead(
                wrId,
                scratch,
                0,
                (int) range.length(),
                range.address(),
                range.rkey(),
                SendFlags.SIGNALED | SendFlags.FENCE);
        Completions.await(qp, wc, wrId, timeoutNanos);
        return hash.digest(scratch.segment().asSlice(0, range.length()));
    }

    /**
     * Verifies {@code range} against {@code expected}; throws {@link VerifyMismatchException} if they differ.
     *
     * @param range    the peer's bytes to read back
     * @param expected the digest they must have, as {@link #algorithm()} computes it
     * @throws RdmaException a {@link VerifyMismatchException} if the digests differ, or what {@link #hash} throws
     */
    public void verify(RemoteRegion range, byte[] expected) throws RdmaException {
        byte[] actual = hash(range);
        if (!Arrays.equals(actual, expected)) {
            throw new VerifyMismatchException(range, hash, expected, actual);
        }
    }

    @Override
    public void close() {
        wc.close();
        scratch.close();
    }

    /** The remote bytes do not hash to the expected value. */
    public static final class VerifyMismatchException extends RdmaException {
        private static final long serialVersionUID = 1L;

        VerifyMismatchException(RemoteRegion range, VerifyHash hash, byte[] expected, byte[] actual) {
            super("VERIFY (emulated) of " + range + " failed: " + hash + " is "
                    + HexFormat.of().formatHex(actual) + ", expected "
                    + HexFormat.of().formatHex(expected));
        }
    }
}
