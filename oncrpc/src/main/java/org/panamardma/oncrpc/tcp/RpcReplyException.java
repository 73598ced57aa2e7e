package org.panamardma.oncrpc.tcp;

import java.util.Objects;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.AuthStat;
import org.panamardma.oncrpc.MismatchInfo;
import org.panamardma.oncrpc.RejectStat;
import org.panamardma.oncrpc.RejectedReply;
import org.panamardma.oncrpc.RpcReply;

/**
 * The server answered the call with an error status: an accepted reply other than SUCCESS (PROG_UNAVAIL,
 * PROG_MISMATCH, PROC_UNAVAIL, GARBAGE_ARGS, SYSTEM_ERR) or a rejected one (RPC_MISMATCH, AUTH_ERROR). The message
 * names the status; the accessors give it typed, with the version range of the two MISMATCH statuses.
 */
public final class RpcReplyException extends RpcException {
    private static final long serialVersionUID = 1L;

    private final transient RpcReply reply;

    /**
     * The server's error status for {@code call}, as the exception's message names it.
     *
     * @param reply the error reply header
     * @param call the call, as the client names it
     * @throws IllegalArgumentException if {@code reply} is a SUCCESS
     */
    public RpcReplyException(RpcReply reply, String call) {
        super(describe(reply, call));
        this.reply = reply;
    }

    private static String describe(RpcReply reply, String call) {
        Objects.requireNonNull(reply, "reply");
        return switch (reply) {
            case AcceptedReply a
            when a.stat() == AcceptStat.SUCCESS -> throw new IllegalArgumentException("SUCCESS is not an error");
            case AcceptedReply a
            when a.stat() == AcceptStat.PROG_MISMATCH ->
                "PROG_MISMATCH: the server supports" + " versions " + range(a.mismatch())
                        + " of the program, not the one of " + call;
            case AcceptedReply a ->
                a.stat() + " for " + call
                        + (switch (a.stat()) {
                            case PROG_UNAVAIL -> " (the program is not available)";
                            case PROC_UNAVAIL -> " (the procedure is not available)";
                            case GARBAGE_ARGS -> " (the server could not decode the arguments)";
                            case SYSTEM_ERR -> " (the server failed to run the procedure)";
                            default -> "";
                        });
            case RejectedReply r
            when r.stat() == RejectStat.RPC_MISMATCH ->
                "RPC_MISMATCH: the server supports RPC" + " versions " + range(r.mismatch()) + ", rejected " + call;
            case RejectedReply r -> "AUTH_ERROR " + r.authStat() + ": the server rejected the credentials of " + call;
        };
    }

    private static String range(MismatchInfo m) {
        return Integer.toUnsignedString(m.low()) + " to " + Integer.toUnsignedString(m.high());
    }

    /** {@return the reply header as received} */
    public RpcReply reply() {
        return reply;
    }

    /** {@return the accept status, or {@code null} if the call was rejected} */
    public AcceptStat acceptStat() {
        return reply instanceof AcceptedReply a ? a.stat() : null;
    }

    /** {@return the reject status, or {@code null} if the call was accepted} */
    public RejectStat rejectStat() {
        return reply instanceof RejectedReply r ? r.stat() : null;
    }

    /** {@return the reason of an AUTH_ERROR, {@code null} otherwise} */
    public AuthStat authStat() {
        return reply instanceof RejectedReply r ? r.authStat() : null;
    }

    /**
     * {@return the supported range of PROG_MISMATCH (program versions) or RPC_MISMATCH (RPC versions), else
     * {@code null}}
     */
    public MismatchInfo mismatch() {
        return switch (reply) {
            case AcceptedReply a -> a.mismatch();
            case RejectedReply r -> r.mismatch();
        };
    }
}
