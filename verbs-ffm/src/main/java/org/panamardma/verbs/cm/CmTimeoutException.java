package org.panamardma.verbs.cm;

import org.panamardma.verbs.RdmaException;

/** No (matching) rdma_cm event arrived within the timeout. */
public class CmTimeoutException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * No event came within the wait's deadline; {@code message} says which.
     *
     * @param message names the id, the event awaited and the timeout
     */
    public CmTimeoutException(String message) {
        super(message);
    }
}
