package org.panamardma.oncrpc;

/** Why authentication failed: {@code auth_stat} of RFC 5531 section 9. */
public enum AuthStat {
    /** Success (never sent in an AUTH_ERROR reply, but defined). */
    AUTH_OK(0),
    /** Bad credential (seal broken). */
    AUTH_BADCRED(1),
    /** The client must begin a new session. */
    AUTH_REJECTEDCRED(2),
    /** Bad verifier (seal broken). */
    AUTH_BADVERF(3),
    /** The verifier expired or was replayed. */
    AUTH_REJECTEDVERF(4),
    /** Rejected for security reasons. */
    AUTH_TOOWEAK(5),
    /** Bogus response verifier (client side). */
    AUTH_INVALIDRESP(6),
    /** Reason unknown (client side). */
    AUTH_FAILED(7),
    /** Kerberos generic error. */
    AUTH_KERB_GENERIC(8),
    /** Time of credential expired. */
    AUTH_TIMEEXPIRE(9),
    /** Problem with ticket file. */
    AUTH_TKT_FILE(10),
    /** Can't decode authenticator. */
    AUTH_DECODE(11),
    /** Wrong net address in ticket. */
    AUTH_NET_ADDR(12),
    /** RPCSEC_GSS: no credentials for user. */
    RPCSEC_GSS_CREDPROBLEM(13),
    /** RPCSEC_GSS: problem with context. */
    RPCSEC_GSS_CTXPROBLEM(14);

    private final int value;

    AuthStat(int value) {
        this.value = value;
    }

    /** {@return the wire value} */
    public int value() {
        return value;
    }

    /**
     * {@return the constant for a wire value, or {@code null} if RFC 5531 defines none}
     *
     * @param value the {@code auth_stat} word as received
     */
    public static AuthStat fromValue(int value) {
        return value >= 0 && value < values().length ? values()[value] : null;
    }
}
