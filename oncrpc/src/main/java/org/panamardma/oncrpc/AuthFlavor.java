package org.panamardma.oncrpc;

/**
 * Authentication flavor numbers (RFC 5531 section 8.2 and its IANA registry). Flavors are an open set, so they
 * are plain {@code int}s rather than an enum: a server must be able to receive and refuse flavors it has never
 * heard of.
 */
public final class AuthFlavor {
    /** No authentication (RFC 5531 section 10.1). */
    public static final int AUTH_NONE = 0;
    /** UNIX-style uid/gid credentials (RFC 5531 section 10.2); formerly AUTH_UNIX. */
    public static final int AUTH_SYS = 1;
    /** Short-hand credential a server may return for AUTH_SYS. */
    public static final int AUTH_SHORT = 2;
    /** Diffie-Hellman (RFC 2695). */
    public static final int AUTH_DH = 3;
    /** RPCSEC_GSS (RFC 2203). */
    public static final int RPCSEC_GSS = 6;

    private AuthFlavor() {}
}
