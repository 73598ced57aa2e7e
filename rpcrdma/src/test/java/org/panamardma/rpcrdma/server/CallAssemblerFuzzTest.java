package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import org.panamardma.rpcrdma.ChunkRoundup;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.ReadChunk;
import org.panamardma.rpcrdma.ReadListPositions;
import org.panamardma.rpcrdma.RpcRdmaHeader;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderException;
import org.panamardma.testing.AllocationBudget;

/**
 * Fuzzes {@link CallAssembler} (FUZZING.md): the input is a received message, decoded and position-checked as the
 * handler does (the assembler's documented precondition), then assembled from the inline part and the Read chunks
 * pulled from {@link FuzzClientMemory}. Typed refusals: {@link RpcRdmaHeaderException} (header, positions),
 * {@link ChunkFault}, and IOException (a chunk outside the client's memory). Anything else is a finding, and so is
 * a call over maxCallSize or of another length than its inline bytes plus its chunks' rounded-up lengths.
 */
class CallAssemblerFuzzTest {
    private static final int MAX_CALL = 64 << 10;
    private static final RpcRdmaHeaderDecoder DECODER = new RpcRdmaHeaderDecoder();

    /**
     * Bounded by maxCallSize, not by the declared chunk lengths: the position-zero buffer and the assembled call,
     * each at most MAX_CALL; plus the header decode (32 per input byte) and a refusal's exception.
     */
    private static long bound(int inputLength) {
        return (64 << 10) + 2L * MAX_CALL + 32L * inputLength;
    }

    @FuzzTest
    void assemble(byte[] received) throws Exception {
        ChunkTransfers client = FuzzClientMemory.checkedTransfers();
        MemorySegment message = MemorySegment.ofArray(received);
        AllocationBudget.within("CallAssembler.assemble", bound(received.length), () -> {
            try {
                DecodedHeader decoded = DECODER.decode(message);
                if (!(decoded.header() instanceof RpcRdmaHeader.WithChunks header)
                        || !(header instanceof RdmaMsg || header instanceof RdmaNoMsg)) {
                    return;
                }
                MemorySegment inline =
                        header instanceof RdmaMsg ? decoded.rpcMessage(message) : MemorySegment.ofArray(new byte[0]);
                ReadListPositions.validate(header, inline.byteSize());
                try (CallMemory memory = new CallMemory(ConnectionMemory.unlimited())) {
                    CallAssembler.Assembled call = CallAssembler.assemble(
                            header, inline, client, MAX_CALL, memory, RpcRdmaCallHandlerTest::usedMemory);
                    check(header, inline, call);
                }
            } catch (RpcRdmaHeaderException | ChunkFault | IOException refused) {
                // typed refusals: ERR_CHUNK, or the connection lost
            }
        });
    }

    private static void check(RpcRdmaHeader.WithChunks header, MemorySegment inline, CallAssembler.Assembled call) {
        long size = call.call().byteSize();
        assertTrue(size <= MAX_CALL, "call of " + size + " bytes");
        var chunks = header.chunks().readChunks();
        long expected;
        int first = 0;
        if (!chunks.isEmpty() && chunks.get(0).position() == 0) {
            assertEquals(CallAssembler.CallPath.POSITION_ZERO, call.path());
            expected = chunks.get(0).length();
            first = 1;
        } else {
            assertEquals(
                    chunks.isEmpty() ? CallAssembler.CallPath.INLINE : CallAssembler.CallPath.READ_CHUNKS, call.path());
            expected = inline.byteSize();
        }
        for (ReadChunk chunk : chunks.subList(first, chunks.size())) {
            expected += ChunkRoundup.roundUp(chunk.length());
        }
        assertEquals(expected, size, "assembled length");
    }
}
