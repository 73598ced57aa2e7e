package org.panamardma.oncrpc;

import org.panamardma.xdr.Xdr;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * Encodes and decodes RPC message headers ({@code rpc_msg}, RFC 5531 section 9). The procedure's arguments or
 * results are not part of the header: after {@link #decode} the decoder stands at them, after {@link #encode} the
 * caller writes them.
 */
public final class RpcMessageCodec {
    // msg_type
    static final int CALL = 0;
    static final int REPLY = 1;
    // reply_stat
    static final int MSG_ACCEPTED = 0;
    static final int MSG_DENIED = 1;

    private RpcMessageCodec() {}

    /**
     * Encodes a message header.
     *
     * @param message the header to encode
     * @param out where to encode; {@link #size(RpcMessage)} bytes are written
     * @throws XdrException {@link XdrException.Reason#NO_SPACE} if {@code out} cannot hold the header
     */
    public static void encode(RpcMessage message, XdrEncoder out) {
        out.putInt(message.xid());
        switch (message) {
            case RpcCall call -> {
                out.putEnum(CALL)
                        .putUnsignedInt(Integer.toUnsignedLong(call.rpcVersion()))
                        .putInt(call.program())
                        .putInt(call.version())
                        .putInt(call.procedure());
                call.credential().encodeTo(out);
                call.verifier().encodeTo(out);
            }
            case AcceptedReply reply -> {
                out.putEnum(REPLY).putEnum(MSG_ACCEPTED);
                reply.verifier().encodeTo(out);
                out.putEnum(reply.stat().value());
                if (reply.stat() == AcceptStat.PROG_MISMATCH) {
                    putMismatch(out, reply.mismatch());
                }
            }
            case RejectedReply reply -> {
                out.putEnum(REPLY).putEnum(MSG_DENIED).putEnum(reply.stat().value());
                switch (reply.stat()) {
                    case RPC_MISMATCH -> putMismatch(out, reply.mismatch());
                    case AUTH_ERROR -> out.putEnum(reply.authStat().value());
                }
            }
        }
    }

    /**
     * {@return the encoded size of a message header, for sizing buffers and inline decisions}
     *
     * @param message the header
     */
    public static int size(RpcMessage message) {
        int words = 2; // xid, msg_type
        return switch (message) {
            case RpcCall call ->
                (words + 4) * Xdr.INT_SIZE
                        + call.credential().xdrSize()
                        + call.verifier().xdrSize();
            case AcceptedReply reply ->
                (words + 2) * Xdr.INT_SIZE
                        + reply.verifier().xdrSize()
                        + (reply.stat() == AcceptStat.PROG_MISMATCH ? 2 * Xdr.INT_SIZE : 0);
            case RejectedReply reply ->
                (words + 2) * Xdr.INT_SIZE
                        + (reply.stat() == RejectStat.RPC_MISMATCH ? 2 * Xdr.INT_SIZE : Xdr.INT_SIZE);
        };
    }

    /**
     * Decodes a message header. A call of any RPC version is decoded with the version-2 layout, which fixes where
     * {@code rpcvers} sits, so that a server can answer it with RPC_MISMATCH (RFC 5531 section 9).
     *
     * @param in positioned at the {@code xid}; left at the arguments or results
     * @return the call or reply header
     * @throws XdrException if the header is truncated or holds a value RFC 5531 does not define (an unknown
     *                      msg_type, reply_stat, accept_stat, reject_stat or auth_stat), or an over-long auth body
     */
    public static RpcMessage decode(XdrDecoder in) {
        int xid = in.getInt("xid");
        long at = in.position();
        int type = in.getInt("msg_type");
        return switch (type) {
            case CALL -> decodeCall(xid, in);
            case REPLY -> decodeReply(xid, in);
            default -> throw new XdrException(XdrException.Reason.INVALID_VALUE, at, "unknown msg_type " + type);
        };
    }

    private static RpcCall decodeCall(int xid, XdrDecoder in) {
        int rpcVersion = in.getInt("rpcvers");
        int program = in.getInt("prog");
        int version = in.getInt("vers");
        int procedure = in.getInt("proc");
        OpaqueAuth credential = OpaqueAuth.decode(in);
        OpaqueAuth verifier = OpaqueAuth.decode(in);
        return new RpcCall(xid, rpcVersion, program, version, procedure, credential, verifier);
    }

    private static RpcReply decodeReply(int xid, XdrDecoder in) {
        long at = in.position();
        int replyStat = in.getInt("reply_stat");
        return switch (replyStat) {
            case MSG_ACCEPTED -> {
                OpaqueAuth verifier = OpaqueAuth.decode(in);
                AcceptStat stat = in.getEnum(AcceptStat::fromValue, "accept_stat");
                MismatchInfo mismatch = stat == AcceptStat.PROG_MISMATCH ? getMismatch(in) : null;
                yield new AcceptedReply(xid, verifier, stat, mismatch);
            }
            case MSG_DENIED -> {
                RejectStat stat = in.getEnum(RejectStat::fromValue, "reject_stat");
                yield switch (stat) {
                    case RPC_MISMATCH -> new RejectedReply(xid, stat, getMismatch(in), null);
                    case AUTH_ERROR -> new RejectedReply(xid, stat, null, in.getEnum(AuthStat::fromValue, "auth_stat"));
                };
            }
            default -> throw new XdrException(XdrException.Reason.INVALID_VALUE, at, "unknown reply_stat " + replyStat);
        };
    }

    private static void putMismatch(XdrEncoder out, MismatchInfo mismatch) {
        out.putInt(mismatch.low()).putInt(mismatch.high());
    }

    private static MismatchInfo getMismatch(XdrDecoder in) {
        return new MismatchInfo(in.getInt("mismatch low"), in.getInt("mismatch high"));
    }
}
