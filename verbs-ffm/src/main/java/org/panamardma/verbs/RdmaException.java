package org.panamardma.verbs;

import java.io.IOException;

/** A verb failed: carries the errno it reported and its name. */
public class RdmaException extends IOException {
    private static final long serialVersionUID = 1L;

    /** The errno of the failure, or 0 if none. */
    private final int errno;

    /** {@code operation} failed with {@code errno} (named in the message). */
    public RdmaException(String operation, int errno) {
        super(operation + " failed: " + Errno.name(errno) + " (" + Math.abs(errno) + ")");
        this.errno = Math.abs(errno);
    }

    /** A failure described by {@code message}, without an errno. */
    public RdmaException(String message) {
        super(message);
        this.errno = 0;
    }

    /** The positive errno value, or 0 when the failure did not come with one. */
    public int errno() {
        return errno;
    }

    /** The errno's symbolic name, e.g. {@code EINVAL}. */
    public String errnoName() {
        return Errno.name(errno);
    }
}
