package org.panamardma.verbs;

import java.io.IOException;

/** A verb failed: carries the errno it reported and its name. */
public class RdmaException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The errno of the failure, or 0 if none. */
    private final int errno;

    /**
     * {@code operation} failed with {@code errno} (named in the message).
     *
     * @param operation the verb and what it acted on, e.g. {@code "ibv_reg_mr(4096 bytes)"}
     * @param errno     the errno the verb reported, either sign (some verbs return it negated); 0 if it reported none
     */
    public RdmaException(String operation, int errno) {
        super(operation
                + (errno == 0 ? " failed (no errno)" : " failed: " + Errno.name(errno) + " (" + Math.abs(errno) + ")"));
        this.errno = Math.abs(errno);
    }

    /**
     * A failure described by {@code message}, without an errno.
     *
     * @param message says what failed and why
     */
    public RdmaException(String message) {
        super(message);
        this.errno = 0;
    }

    /** {@return the positive errno value, or 0 when the failure did not come with one} */
    public int errno() {
        return errno;
    }

    /** {@return the errno's symbolic name, e.g. {@code EINVAL}} */
    public String errnoName() {
        return Errno.name(errno);
    }
}
