package org.panamardma.rpcrdma.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.panamardma.testing.LogCapture;
import org.panamardma.verbs.connection.Received;
import org.panamardma.verbs.trusted.Callbacks;

/**
 * The client's receive loop, fed by a fake receive queue: messages already there are taken in the loop, the next one
 * by a completion callback; when that callback fails, the failure is logged as an ERROR naming the client instead of
 * vanishing with the future {@code whenComplete} returned (before f44fe1e the loop ended without a word, and every
 * call then waited out its timeout with nothing in the log to say why: this test fails there, no record).
 *
 * <p>The messages are malformed transport headers, which the receiver drops (RFC 8166 section 4.5) without touching
 * the calls or the chunk memory, so neither is needed here.
 */
class ReplyReceiverTest {
    /** What Callbacks logs (SLF4J through slf4j-jdk14 to java.util.logging, named by class). */
    @RegisterExtension
    private final LogCapture log = LogCapture.of(Callbacks.class);

    private static Received malformed() {
        return new Received(new byte[] {1, 2, 3}, false, 0);
    }

    /** A receive queue that hands out {@code futures} in order, then throws {@code after}. */
    private static Supplier<CompletableFuture<Received>> queue(
            AtomicInteger taken, RuntimeException after, List<CompletableFuture<Received>> futures) {
        return () -> {
            int i = taken.getAndIncrement();
            if (i < futures.size()) {
                return futures.get(i);
            }
            throw after;
        };
    }

    @Test
    void messagesAlreadyReceivedAreTakenInTheLoopAndTheNextByACallback() {
        AtomicInteger taken = new AtomicInteger();
        CompletableFuture<Received> later = new CompletableFuture<>();
        CompletableFuture<Received> last = new CompletableFuture<>();
        ReplyReceiver receiver = new ReplyReceiver(
                "client rr-1",
                queue(
                        taken,
                        new IllegalStateException("not reached"),
                        List.of(
                                CompletableFuture.completedFuture(malformed()),
                                CompletableFuture.completedFuture(malformed()),
                                later,
                                last)),
                null,
                null);
        receiver.receiveNext();
        assertEquals(3, taken.get(), "two waiting messages taken in the loop, then a callback on the third");
        later.complete(malformed());
        assertEquals(4, taken.get(), "the callback took the next receive");
        assertTrue(log.records().isEmpty(), "nothing failed: " + log.records());
    }

    @Test
    void aCallbackThatFailsIsLoggedAsAnErrorNamingTheClient() {
        AtomicInteger taken = new AtomicInteger();
        CompletableFuture<Received> first = new CompletableFuture<>();
        IllegalStateException broken = new IllegalStateException("the receive queue broke its contract");
        ReplyReceiver receiver = new ReplyReceiver("client rr-2", queue(taken, broken, List.of(first)), null, null);
        receiver.receiveNext();
        first.complete(malformed()); // its callback handles it, then asks for the next receive, which throws
        assertEquals(2, taken.get());
        List<LogRecord> errors =
                log.records().stream().filter(r -> r.getLevel() == Level.SEVERE).toList();
        assertEquals(1, errors.size(), "one ERROR for the failed callback: " + log.records());
        assertSame(broken, errors.get(0).getThrown());
        assertTrue(
                errors.get(0).getMessage().contains("client rr-2"),
                errors.get(0).getMessage());
    }
}
