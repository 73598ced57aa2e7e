package org.panamardma.nfs.server;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The write verifier of WRITE and COMMIT (RFC 1813 section 3.3.7): a value a client compares between its UNSTABLE
 * WRITEs and the COMMIT that follows; when it differs, the client sends that data again, since the server may have
 * lost it. So it changes when the server starts (a restart loses what was not on disk), and, as knfsd's
 * {@code nfsd_reset_write_verifier} does, whenever a write or a sync fails for a reason other than a transient one:
 * the page cache may have dropped data already acknowledged as UNSTABLE (a writeback error), and only a new verifier
 * makes clients send it again.
 */
final class WriteVerifier {
    private final SecureRandom random = new SecureRandom();
    private final AtomicLong value = new AtomicLong();

    WriteVerifier() {
        reset();
    }

    /** {@return the current verifier} */
    long current() {
        return value.get();
    }

    /** A new verifier: every client resends its uncommitted data. */
    void reset() {
        long v;
        do {
            v = random.nextLong();
        } while (v == value.get());
        value.set(v);
    }

    /**
     * Resets the verifier after a failed write or sync, unless the failure says nothing about stable storage
     * (knfsd's {@code commit_reset_write_verifier}: EAGAIN and ESTALE do not reset it).
     */
    void failed(PosixException e) {
        if (e.errno() != PosixException.EAGAIN
                && e.errno() != PosixException.ESTALE
                && e.errno() != PosixException.EINTR) {
            reset();
        }
    }
}
