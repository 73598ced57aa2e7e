package org.panamardma.oncrpc;

import java.util.Objects;

/**
 * MSG_ACCEPTED ({@code accepted_reply} of RFC 5531 section 9). For {@link AcceptStat#SUCCESS} the procedure's
 * results follow this header in the stream; for {@link AcceptStat#PROG_MISMATCH} {@code mismatch} holds the
 * supported version range; for every other status nothing follows.
 *
 * @param xid the transaction id of the call
 * @param verifier the server's verifier
 * @param stat the outcome
 * @param mismatch the supported range for PROG_MISMATCH, {@code null} otherwise
 */
public record AcceptedReply(int xid, OpaqueAuth verifier, AcceptStat stat, MismatchInfo mismatch) implements RpcReply {

    /**
     * Checks that {@code mismatch} is there exactly when the status is PROG_MISMATCH, the one status whose reply
     * carries a version range (RFC 5531 section 9).
     *
     * @throws IllegalArgumentException if {@code mismatch} is given for a status other than PROG_MISMATCH or missing
     *         for it
     */
    public AcceptedReply {
        Objects.requireNonNull(verifier, "verifier");
        Objects.requireNonNull(stat, "stat");
        if ((stat == AcceptStat.PROG_MISMATCH) != (mismatch != null)) {
            throw new IllegalArgumentException("mismatch info goes with PROG_MISMATCH and only with it, not " + stat);
        }
    }

    /**
     * SUCCESS; the results follow.
     *
     * @param xid the transaction id of the call answered
     * @param verifier the server's verifier ({@link OpaqueAuth#NONE} for AUTH_NONE and AUTH_SYS)
     * @return the reply header
     */
    public static AcceptedReply success(int xid, OpaqueAuth verifier) {
        return new AcceptedReply(xid, verifier, AcceptStat.SUCCESS, null);
    }

    /**
     * PROG_MISMATCH with the lowest and highest versions the program supports.
     *
     * @param xid the transaction id of the call answered
     * @param verifier the server's verifier
     * @param low the lowest version of the program this server supports
     * @param high the highest version of the program this server supports
     * @return the reply header
     */
    public static AcceptedReply progMismatch(int xid, OpaqueAuth verifier, int low, int high) {
        return new AcceptedReply(xid, verifier, AcceptStat.PROG_MISMATCH, new MismatchInfo(low, high));
    }

    /**
     * PROG_UNAVAIL, PROC_UNAVAIL, GARBAGE_ARGS or SYSTEM_ERR: a status with no body.
     *
     * @param xid the transaction id of the call answered
     * @param verifier the server's verifier
     * @param stat the status; PROG_MISMATCH takes {@link #progMismatch} instead
     * @return the reply header
     * @throws IllegalArgumentException if {@code stat} is PROG_MISMATCH (its version range is missing)
     */
    public static AcceptedReply failure(int xid, OpaqueAuth verifier, AcceptStat stat) {
        return new AcceptedReply(xid, verifier, stat, null);
    }
}
