package org.panamardma.verbs;

/** A work request completed with an error status. */
public class WorkCompletionException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** The wr_id of the request that failed. */
    private final long wrId;
    /** The completion's status. */
    private final WcStatus status;
    /** The provider's vendor error. */
    private final int vendorError;

    /** Request {@code wrId} completed with {@code status}; {@code context} names where. */
    public WorkCompletionException(long wrId, WcStatus status, int vendorError, String context) {
        super("work request " + wrId + (context.isEmpty() ? "" : " (" + context + ")") + " failed: " + status.cName()
                + " (" + status.description() + "), vendor error 0x" + Integer.toHexString(vendorError));
        this.wrId = wrId;
        this.status = status;
        this.vendorError = vendorError;
    }

    /** The wr_id of the request that failed. */
    public long wrId() {
        return wrId;
    }

    /** The completion's status. */
    public WcStatus status() {
        return status;
    }

    /** The provider's vendor error code. */
    public int vendorError() {
        return vendorError;
    }
}
