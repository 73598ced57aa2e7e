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

    /**
     * Request {@code wrId} completed with {@code status}; {@code context} names where.
     *
     * @param wrId        the failed request's {@code wr_id}
     * @param status      the completion's status (not SUCCESS)
     * @param vendorError the provider's {@code vendor_err}, 0 if it gives none
     * @param context     names the queue and the operation, for the message
     */
    public WorkCompletionException(long wrId, WcStatus status, int vendorError, String context) {
        super("work request " + wrId + (context.isEmpty() ? "" : " (" + context + ")") + " failed: " + status.cName()
                + " (" + status.description() + "), vendor error 0x" + Integer.toHexString(vendorError));
        this.wrId = wrId;
        this.status = status;
        this.vendorError = vendorError;
    }

    /** {@return the wr_id of the request that failed} */
    public long wrId() {
        return wrId;
    }

    /** {@return the completion's status} */
    public WcStatus status() {
        return status;
    }

    /** {@return the provider's vendor error code ({@code vendor_err}), 0 if it gives none} */
    public int vendorError() {
        return vendorError;
    }
}
