package org.panamardma.oncrpc;

import org.panamardma.xdr.XdrException;

/**
 * Decides whether a call's credential and verifier are acceptable, before the call is dispatched
 * (RFC 5531 section 8.2). Anything but {@link AuthStat#AUTH_OK} is answered with MSG_DENIED / AUTH_ERROR.
 */
@FunctionalInterface
public interface RpcAuthenticator {
    /**
     * Checks one call's credential and verifier. Runs on the transport's thread before the arguments are decoded, so it
     * must not block; it should answer a malformed credential with a status such as AUTH_BADCRED rather than throw.
     *
     * @param call the call header
     * @return {@link AuthStat#AUTH_OK} to accept, or the reason to reject
     */
    AuthStat check(RpcCall call);

    /**
     * Accepts AUTH_NONE, and AUTH_SYS whose body is a well-formed {@link AuthSysParms}; answers AUTH_BADCRED to
     * any other flavor and to malformed AUTH_SYS bodies (as the Linux server does for flavors it does not know).
     * Performs no access control: that belongs to the program.
     *
     * @return the authenticator; stateless and thread-safe
     */
    static RpcAuthenticator noneOrSys() {
        return call -> switch (call.credential().flavor()) {
            case AuthFlavor.AUTH_NONE -> AuthStat.AUTH_OK;
            case AuthFlavor.AUTH_SYS -> {
                try {
                    AuthSysParms.from(call.credential());
                    yield AuthStat.AUTH_OK;
                } catch (XdrException malformed) {
                    yield AuthStat.AUTH_BADCRED;
                }
            }
            default -> AuthStat.AUTH_BADCRED;
        };
    }
}
