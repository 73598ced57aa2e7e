package org.panamardma.nfs;

import java.io.IOException;

/** The NFS server ran the procedure and answered with a status other than NFS3_OK. */
public final class NfsException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The server's status. */
    private final NfsStat3 status;

    /**
     * An error status from the server.
     *
     * @param status the status, not NFS3_OK
     * @param operation the call, named in the message ({@code "LOOKUP name"})
     */
    public NfsException(NfsStat3 status, String operation) {
        super(status + " from " + operation);
        this.status = status;
    }

    /** {@return the server's status} */
    public NfsStat3 status() {
        return status;
    }
}
