package org.panamardma.verbs.cm;

import org.panamardma.verbs.RdmaException;

/** No (matching) rdma_cm event arrived within the timeout. */
public class CmTimeoutException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /** No event came within the wait's deadline; {@code message} says which. */
    public CmTimeoutException(String message) {
        super(message);
    }
}
