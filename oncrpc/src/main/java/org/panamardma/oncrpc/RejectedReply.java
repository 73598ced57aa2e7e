package org.panamardma.oncrpc;

import java.util.Objects;

/**
 * MSG_DENIED ({@code rejected_reply} of RFC 5531 section 9): RPC_MISMATCH with the supported RPC version range, or
 * AUTH_ERROR with the reason.
 *
 * @param xid the transaction id of the call
 * @param stat why the call was rejected
 * @param mismatch the supported RPC versions for RPC_MISMATCH, {@code null} for AUTH_ERROR
 * @param authStat the reason for AUTH_ERROR, {@code null} for RPC_MISMATCH
 */
public record RejectedReply(int xid, RejectStat stat, MismatchInfo mismatch, AuthStat authStat) implements RpcReply {

    /**
     * Checks that the fields match {@code stat}: a version range for RPC_MISMATCH, an {@code auth_stat} for AUTH_ERROR
     * (RFC 5531 section 9).
     *
     * @throws IllegalArgumentException if the fields do not match {@code stat}
     */
    public RejectedReply {
        Objects.requireNonNull(stat, "stat");
        boolean consistent = switch (stat) {
            case RPC_MISMATCH -> mismatch != null && authStat == null;
            case AUTH_ERROR -> mismatch == null && authStat != null;
        };
        if (!consistent) {
            throw new IllegalArgumentException(stat + " takes "
                    + (stat == RejectStat.RPC_MISMATCH
                            ? "mismatch info and no auth_stat"
                            : "an auth_stat and no mismatch info"));
        }
    }

    /**
     * RPC_MISMATCH with the lowest and highest RPC versions supported.
     *
     * @param xid the transaction id of the call answered
     * @param low the lowest RPC version supported (2 for this library)
     * @param high the highest RPC version supported
     * @return the reply header
     */
    public static RejectedReply rpcMismatch(int xid, int low, int high) {
        return new RejectedReply(xid, RejectStat.RPC_MISMATCH, new MismatchInfo(low, high), null);
    }

    /**
     * AUTH_ERROR with its reason.
     *
     * @param xid the transaction id of the call answered
     * @param why why the credential or verifier was refused
     * @return the reply header
     */
    public static RejectedReply authError(int xid, AuthStat why) {
        return new RejectedReply(xid, RejectStat.AUTH_ERROR, null, why);
    }
}
