package org.panamardma.nfs.server;

import org.panamardma.nfs.NfsStat3;

/** A procedure's failure with the {@code nfsstat3} to answer (RFC 1813 section 2.6); never leaves the server. */
final class NfsError extends Exception {
    private static final long serialVersionUID = 1L;
    private final NfsStat3 status;

    NfsError(NfsStat3 status, String message) {
        super(status + ": " + message, null, false, false);
        this.status = status;
    }

    NfsStat3 status() {
        return status;
    }

    static NfsError of(PosixException e) {
        return new NfsError(e.status(), e.getMessage());
    }
}
