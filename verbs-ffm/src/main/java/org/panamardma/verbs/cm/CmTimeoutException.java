package org.panamardma.verbs.cm;

import org.panamardma.verbs.RdmaException;

/** No (matching) rdma_cm event arrived within the timeout. */
public class CmTimeoutException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public CmTimeoutException(String message) {
        super(message);
    }
}
