package org.panamardma.verbs;

/**
 * libibverbs or librdmacm cannot be used: it is not installed (the message names the package to install), cannot be
 * loaded, or is older than the oldest rdma-core release supported ({@value RdmaCore#OLDEST_SUPPORTED}). Thrown by
 * the first entries into the library ({@link Device#list()}, {@link Context#open(String)},
 * {@code EventChannel.create()}), before any call into the library concerned.
 */
public final class RdmaLibraryException extends RdmaException {
    private static final long serialVersionUID = 1L;

    /**
     * The library cannot be used; {@code message} says why and what to install.
     *
     * @param message says what is missing or too old, and which package to install
     */
    public RdmaLibraryException(String message) {
        super(message);
    }
}
