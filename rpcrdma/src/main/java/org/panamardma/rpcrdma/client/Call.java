package org.panamardma.rpcrdma.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.RpcRdmaHeader;
import org.panamardma.verbs.RdmaException;

/** One call of an {@link RpcRdmaClient}: its plan, transport header, chunk memory and future. */
final class Call {
    final int xid;
    final CompletableFuture<RpcRdmaReply> future;
    final ReplyExpectation expectation;
    final CallChunks chunks;
    CallPlan plan;
    RpcRdmaHeader header;
    volatile ScheduledFuture<?> timeout;
    volatile boolean sent;
    /** Set when the call ends (its chunks being revoked): it must not be sent any more. */
    volatile boolean ended;
    /** For interoperability tests: {word, value} replacing one word of the encoded transport header, or null. */
    int[] headerPatch;

    Call(int xid, CompletableFuture<RpcRdmaReply> future, ReplyExpectation expectation, ChunkMemory memory) {
        this.xid = xid;
        this.future = future;
        this.expectation = expectation;
        this.chunks = new CallChunks(memory);
    }

    /** Exposes the chunk memory of the plan and builds the transport header, asking for {@code credits}. */
    void expose(int credits) throws RdmaException {
        ChunkLists lists = chunks.build(plan, expectation);
        header = plan.kind() == CallPlan.Kind.POSITION_ZERO
                ? new RdmaNoMsg(xid, credits, lists)
                : new RdmaMsg(xid, credits, lists);
    }

    /** {@return the chunk lists the call's transport header offered} */
    ChunkLists offered() {
        return header instanceof RpcRdmaHeader.WithChunks w ? w.chunks() : ChunkLists.NONE;
    }

    /** {@return the XID in hex, as messages name the call} */
    String hexXid() {
        return Integer.toHexString(xid);
    }
}
