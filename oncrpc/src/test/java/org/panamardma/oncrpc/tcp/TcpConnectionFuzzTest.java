package org.panamardma.oncrpc.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.panamardma.oncrpc.RecordMarkingDecoder;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.RpcReply;
import org.panamardma.oncrpc.limits.MemoryBudget;
import org.panamardma.oncrpc.limits.RateLimitedLog;
import org.panamardma.testing.AllocationBudget;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;
import org.slf4j.event.Level;

/**
 * {@link TcpRpcServer} at connection level (rpcrdma/FUZZING.md, target {@code tcp-connection}): the input is the
 * byte stream a client sends on one connection, read by {@link TcpConnection} as the server reads a socket (record
 * marking, the memory budget, call slots, dispatch, replies), its calls run on the reading thread so that every
 * allocation is measured. Programs: NULL, ECHO (an opaque back as a gathered, eligible item), ECHO_INLINE (copied
 * into the 4 KiB reply buffer: larger is SYSTEM_ERR) and FAIL (throws). Records over 64 KiB end the connection;
 * records the connection's 16 KiB budget cannot hold are read, thrown away and dropped.
 *
 * <p>Nothing may escape {@link TcpConnection#run()}: every stream ends the connection (end of stream, a protocol
 * error) with all memory given back. What was written must be whole records of RPC replies, no more than the calls
 * read. Allocation is bounded as stated in {@link #bound}.
 */
class TcpConnectionFuzzTest {
    private static final int PROG = 400_126;
    private static final int MAX_RECORD = 64 << 10;
    private static final int REPLY_BUFFER = 4096;
    private static final long CONNECTION_MEMORY = 16 << 10;
    private static final TcpSettings SETTINGS = new TcpSettings(
            MAX_RECORD,
            REPLY_BUFFER,
            4,
            Duration.ZERO,
            Duration.ofMinutes(1),
            Duration.ofMinutes(1),
            Duration.ofMinutes(1));
    private static final RpcDispatcher DISPATCHER = RpcDispatcher.builder()
            .register(PROG, 1, 0, in -> "", (a, c) -> XdrEncodable.VOID)
            .register(
                    PROG,
                    1,
                    1,
                    in -> in.getOpaque(MAX_RECORD),
                    (MemorySegment data, RpcCall c) -> out -> out.putEligibleOpaque(data, MAX_RECORD))
            .register(
                    PROG,
                    1,
                    2,
                    in -> in.getOpaque(MAX_RECORD),
                    (MemorySegment data, RpcCall c) -> out -> out.putOpaque(data, MAX_RECORD))
            .register(PROG, 1, 3, in -> "", (a, c) -> {
                throw new IllegalStateException("the procedure failed");
            })
            .build();
    private static final ReplyBuffers REPLY_BUFFERS = new ReplyBuffers(REPLY_BUFFER);
    private static final TcpServerStatistics STATISTICS =
            new TcpServerStatistics(new RateLimitedLog(TcpConnectionFuzzTest.class, Duration.ofSeconds(10)));

    /**
     * Per input byte: a record's array is at most its length (it grows with arriving data, in steps that stop at
     * the record's end), and the output holds at most the replies (an echo is at most its call's data plus a
     * 24-byte header and the 4-byte record mark) in a stream that doubles (about 4 bytes per input byte). Per call
     * (a call takes at least 44 input bytes: a record mark and the 40-byte smallest call header) the decoder, the
     * call, the dispatch and the reply's scope and record cost some hundreds of bytes, and FAIL's exception (its
     * stack trace) a few KiB: 128 bytes per input byte covers both. The constant is the one end of the connection
     * (an exception and its message) and the first use of the pooled reply buffer.
     */
    private static long bound(int inputLength) {
        return (128 << 10) + 128L * inputLength;
    }

    @FuzzTest
    void stream(byte[] input) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        MemoryBudget server = MemoryBudget.of("server", 4 * CONNECTION_MEMORY);
        TcpConnection[] ran = new TcpConnection[1];
        AllocationBudget.within("TcpConnection over the stream", bound(input.length), () -> {
            out.reset();
            MemoryBudget memory = server.child("connection", CONNECTION_MEMORY);
            TcpConnection c = new TcpConnection(
                    "fuzz",
                    new ByteArrayInputStream(input),
                    out,
                    () -> {},
                    DISPATCHER,
                    Optional.empty(),
                    Optional.empty(),
                    SETTINGS,
                    memory,
                    REPLY_BUFFERS,
                    Runnable::run,
                    STATISTICS,
                    Level.DEBUG);
            c.run();
            ran[0] = c;
        });
        TcpConnection c = ran[0];
        assertNotNull(c.end(), "the connection ended");
        assertEquals(0, c.callsInProgress());
        assertEquals(0, server.used(), "every byte given back");
        List<RpcReply> replies = new ArrayList<>();
        RecordMarkingDecoder records = new RecordMarkingDecoder(Integer.MAX_VALUE);
        records.feed(
                MemorySegment.ofArray(out.toByteArray()),
                record ->
                        replies.add(assertInstanceOf(RpcReply.class, RpcMessageCodec.decode(new XdrDecoder(record)))));
        assertTrue(!records.hasPartialRecord(), "replies are written whole");
        assertTrue(replies.size() <= input.length / 44, replies.size() + " replies to " + input.length + " bytes");
    }
}
