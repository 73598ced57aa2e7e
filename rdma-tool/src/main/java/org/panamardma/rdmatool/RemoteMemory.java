package org.panamardma.rdmatool;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.Received;

/**
 * The demo server's memory as a client knows it ({@link DemoServer}): its address and key, the answer to a client's
 * first message, asked on a connection-layer connection or on a bare-verbs one.
 */
record RemoteMemory(long address, int rkey) {
    /** A client's first message: where is the memory? (Any bytes would do; these say what they are for.) */
    static final byte[] ASK = "where is your memory?".getBytes(StandardCharsets.US_ASCII);
    /** The server's answer: the memory's address (8 bytes) and key (4 bytes), padded. */
    static final int DESCRIPTION = 16;

    /** Asks the server where its memory is, on a connection-layer connection: the answer's address and key. */
    static RemoteMemory ask(RdmaConnection c, Duration timeout) throws Exception {
        try (MemoryRegion question = c.protectionDomain().allocate(ASK.length, Set.of(Access.LOCAL_WRITE))) {
            MemorySegment.copy(ASK, 0, question.segment(), JAVA_BYTE, 0, ASK.length);
            CompletableFuture<Received> answer = c.receive();
            Demo.await(c.send(question, 0, ASK.length), timeout);
            return of(Demo.await(answer, timeout).data());
        }
    }

    /**
     * Asks the server where its memory is, on the bare-verbs connection {@code c} whose receive of the answer into
     * {@code mr} at 0 is posted: SENDs the question from {@code mr} at {@code questionOffset} and waits for both
     * completions.
     */
    static RemoteMemory ask(
            CmConnector.Connection c,
            CompletionQueue cq,
            MemoryRegion mr,
            long questionOffset,
            WorkCompletions wc,
            Duration timeout)
            throws Exception {
        final long questionId = 1L << 61;
        MemorySegment.copy(ASK, 0, mr.segment(), JAVA_BYTE, questionOffset, ASK.length);
        c.queuePair().postSend(questionId, mr, questionOffset, ASK.length, SendFlags.SIGNALED);
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean sent = false;
        boolean answered = false;
        while (!sent || !answered) {
            int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                wc.check(i);
                if (wc.wrId(i) == questionId) {
                    sent = true;
                } else {
                    answered = true;
                }
            }
            if (n == 0) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("the server did not say where its memory is");
                }
                Thread.onSpinWait();
            }
        }
        return of(mr.segment().asSlice(0, 16).toArray(JAVA_BYTE));
    }

    /** The server's answer: address and key. */
    static RemoteMemory of(byte[] message) {
        ByteBuffer b = ByteBuffer.wrap(message);
        return new RemoteMemory(b.getLong(0), b.getInt(8));
    }
}
