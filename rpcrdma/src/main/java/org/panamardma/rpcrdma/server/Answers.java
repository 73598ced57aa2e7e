package org.panamardma.rpcrdma.server;

import java.lang.foreign.MemorySegment;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RpcRdmaHeaderEncoder;
import org.panamardma.xdr.XdrEncoder;

/**
 * How a message is answered, counted: both sides of the handler end here ({@link RpcRdmaCallHandler} for what it
 * refuses on receipt, {@link ReplyDraft} for replies), so that every answer is counted once in
 * {@link ServerStatistics#reply}.
 */
final class Answers {
    private final ServerStatistics statistics;

    Answers(ServerStatistics statistics) {
        this.statistics = statistics;
    }

    /** Encodes {@code error} into the Send buffer {@code out}. */
    RpcRdmaCallHandler.Outcome error(RdmaError error, MemorySegment out) {
        XdrEncoder send = new XdrEncoder(out);
        RpcRdmaHeaderEncoder.encode(error, send);
        return sent(
                error instanceof RdmaError.VersionMismatch ? ReplyPath.ERR_VERS : ReplyPath.ERR_CHUNK,
                (int) send.position(),
                error.xid());
    }

    /** ERR_CHUNK (RFC 8166 section 4.5.2) for call {@code xid}. */
    RpcRdmaCallHandler.Outcome chunkError(int xid, int grant, MemorySegment out) {
        return error(new RdmaError.ChunkError(xid, grant), out);
    }

    /** A reply of {@code length} bytes encoded in the Send buffer. */
    RpcRdmaCallHandler.Outcome sent(ReplyPath path, int length, int xid) {
        statistics.reply(path);
        return new RpcRdmaCallHandler.Outcome(path, length, xid);
    }

    /** Nothing to send. */
    RpcRdmaCallHandler.Outcome dropped(int xid) {
        statistics.reply(ReplyPath.DROPPED);
        return new RpcRdmaCallHandler.Outcome(ReplyPath.DROPPED, 0, xid);
    }
}
