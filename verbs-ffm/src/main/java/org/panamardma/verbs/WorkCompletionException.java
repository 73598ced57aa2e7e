package org.panamardma.verbs;

/** A work request completed with an error status. */
public class WorkCompletionException extends RdmaException {
    private static final long serialVersionUID = 1L;

    private final long wrId;
    private final WcStatus status;
    private final int vendorError;

    public WorkCompletionException(long wrId, WcStatus status, int vendorError, String context) {
        super("work request " + wrId + (context.isEmpty() ? "" : " (" + context + ")") + " failed: " + status.cName()
                + " (" + status.description() + "), vendor error 0x" + Integer.toHexString(vendorError));
        this.wrId = wrId;
        this.status = status;
        this.vendorError = vendorError;
    }

    public long wrId() {
        return wrId;
    }

    public WcStatus status() {
        return status;
    }

    public int vendorError() {
        return vendorError;
    }
}
