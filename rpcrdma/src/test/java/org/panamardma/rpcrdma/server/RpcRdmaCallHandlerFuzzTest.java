package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import org.panamardma.oncrpc.limits.MemoryBudget;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderException;
import org.panamardma.testing.AllocationBudget;

/**
 * Fuzzes the server's handling of one received message end to end (FUZZING.md): header, positions, call assembly
 * through RDMA Reads, dispatch to {@link EchoProgram} and the transport's CONF_RDMA, reply placement through RDMA
 * Writes, against a host-played client memory ({@link FuzzClientMemory}). {@code handle} declares only
 * IOException (an RDMA Read or Write failed: here, a chunk naming memory the client does not have); anything else
 * escaping is a finding, and so is an answer that is not a well-formed transport header within the Send buffer.
 *
 * <p>Written against the handler's constructor as of this commit: when the handler's internals or constructor
 * change, adapt {@link #handler} only.
 */
class RpcRdmaCallHandlerFuzzTest {
    private static final ConnectionSettings SETTINGS = new ConnectionSettings(4096, 1024, 8, 64 << 10, 64 << 10, 4);
    private static final RpcRdmaHeaderDecoder CLIENT_SIDE = new RpcRdmaHeaderDecoder();

    /**
     * The handler's memory is bounded by its settings, never by what the client declares (docs/architecture.md,
     * "A server's memory is bounded by its configuration"): a call
     * assembled from its chunks of at most maxCallSize (once for a position-zero chunk, once more with further Read
     * chunks), a reply buffer of at most maxReplySize, plus the header decode (32 per input byte, as in
     * RpcRdmaHeaderFuzzTest) and a constant for exceptions and the dispatcher's objects.
     */
    private static final long FIXED = (128 << 10) + 2L * SETTINGS.maxCallSize() + SETTINGS.maxReplySize();

    /** The server's budgets, as a connection has them: room for the largest call and reply, no waiting. */
    private static final MemoryBudget HEAP = MemoryBudget.of("server heap", 4L * SETTINGS.maxCallSize());

    private static final MemoryBudget PINNED = MemoryBudget.of("server pinned", 4L * SETTINGS.maxCallSize());

    private static RpcRdmaCallHandler handler(ChunkTransfers client) {
        ConnectionMemory memory = new ConnectionMemory(
                HEAP.child("heap", 2L * SETTINGS.maxCallSize() + SETTINGS.maxReplySize()),
                PINNED.child("pinned", 2L * SETTINGS.maxCallSize()),
                0);
        return new RpcRdmaCallHandler(
                EchoProgram.dispatcher(),
                new RpcRdmaHeaderDecoder(),
                SETTINGS,
                client,
                new ServerStatistics(),
                ConfigRdmaProgram.INSTANCE,
                memory,
                "fuzz");
    }

    @FuzzTest
    void handle(byte[] received) throws Exception {
        ChunkTransfers client = FuzzClientMemory.checkedTransfers();
        RpcRdmaCallHandler handler = handler(client);
        MemorySegment sendBuffer = MemorySegment.ofArray(new byte[SETTINGS.sendInline()]);
        RpcRdmaCallHandler.Outcome[] outcome = new RpcRdmaCallHandler.Outcome[1];
        AllocationBudget.within("RpcRdmaCallHandler.handle", FIXED + 32L * received.length, () -> {
            try {
                outcome[0] = handler.handle(MemorySegment.ofArray(received), sendBuffer);
            } catch (IOException connectionLost) {
                outcome[0] = null;
            }
        });
        // whatever the input, a handled call gives back every byte it took from the budgets
        assertEquals(0, HEAP.used(), "heap budget after the call");
        assertEquals(0, PINNED.used(), "pinned budget after the call");
        if (outcome[0] == null) {
            return;
        }
        RpcRdmaCallHandler.Outcome o = outcome[0];
        if (o.path() == ReplyPath.DROPPED) {
            assertEquals(0, o.sendLength());
            return;
        }
        assertTrue(o.sendLength() >= 16 && o.sendLength() <= sendBuffer.byteSize(), "send length " + o.sendLength());
        // What the server sends must be a header the client can read, under the same XID.
        DecodedHeader answer;
        try {
            answer = CLIENT_SIDE.decode(sendBuffer.asSlice(0, o.sendLength()));
        } catch (RpcRdmaHeaderException e) {
            throw new AssertionError("the server sent a header it could not decode itself: " + e.getMessage(), e);
        }
        assertEquals(o.xid(), answer.header().xid(), "reply XID");
        assertTrue(
                answer.header().credits() >= 1 && answer.header().credits() <= SETTINGS.maxCredits(),
                "credits granted " + answer.header().credits());
    }
}
