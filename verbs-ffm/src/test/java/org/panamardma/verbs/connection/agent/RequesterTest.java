package org.panamardma.verbs.connection.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The requester without a device: ORD, numbering, response matching, and the READ ordering of RFC 7306 section 7. */
class RequesterTest {
    /** A post as the connection would make it: the request numbered in post order, its SEND's future. */
    record Posted(AtomicRequest request, CompletableFuture<Void> send) {}

    /** Records every post; the test completes the SENDs and delivers the responses. */
    static final class FakeConnection implements Requester.Poster {
        final List<Posted> posted = new ArrayList<>();
        final List<String> order = new ArrayList<>();

        @Override
        public synchronized CompletableFuture<Void> post(
                AtomicRequest template, long postIndex, Requester.IdAssignment assign) {
            long id = assign.assign();
            assign.posted();
            CompletableFuture<Void> send = new CompletableFuture<>();
            posted.add(new Posted(template.withRequestId(id), send));
            order.add("atomic " + id);
            return send;
        }

        CompletableFuture<Void> read(String name) {
            synchronized (this) {
                order.add("read " + name);
            }
            return CompletableFuture.completedFuture(null);
        }
    }

    private static AtomicRequest add(long n) {
        return AtomicRequest.fetchAdd(0, 1, 8, n, 0);
    }

    @Test
    void atMostOrdRequestsAreOutstandingAndTheRestWaitInOrder() throws Exception {
        FakeConnection c = new FakeConnection();
        Requester r = new Requester(c, 2);
        List<CompletableFuture<Long>> f = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            f.add(r.submit(add(i)));
        }
        assertEquals(2, c.posted.size(), "ORD 2");
        // a credit comes back only with the response AND the request's own send completion
        r.onResponse(0, 100);
        assertEquals(100L, f.get(0).getNow(-1L));
        assertEquals(2, c.posted.size(), "the send of request 0 has not completed yet");
        c.posted.get(0).send().complete(null);
        assertEquals(3, c.posted.size());
        c.posted.get(1).send().complete(null);
        assertEquals(3, c.posted.size(), "request 1 is not answered yet");
        r.onResponse(1, 101);
        assertEquals(4, c.posted.size());
        for (int i = 0; i < 4; i++) {
            assertEquals(i, c.posted.get(i).request().requestId(), "numbered in posting order");
            assertEquals(i, c.posted.get(i).request().addOrSwap(), "posted in submission order");
        }
        assertEquals(2, r.highWater());
    }

    @Test
    void aResponseForAnyButTheOldestOutstandingRequestIsAProtocolError() throws Exception {
        FakeConnection c = new FakeConnection();
        Requester r = new Requester(c, 4);
        var _ = r.submit(add(1));
        var _ = r.submit(add(2));
        AgentProtocolException e = assertThrows(AgentProtocolException.class, () -> r.onResponse(1, 0));
        assertEquals(TerminateError.MSN_RANGE, e.error());
        r.onResponse(0, 5);
        r.onResponse(1, 6);
        assertEquals(
                TerminateError.MSN_RANGE,
                assertThrows(AgentProtocolException.class, () -> r.onResponse(2, 0))
                        .error(),
                "none outstanding");
    }

    @Test
    void aReadWaitsForTheAgentAtomicsPostedBeforeItAndAtomicsAfterItWaitForIt() throws Exception {
        FakeConnection c = new FakeConnection();
        Requester r = new Requester(c, 4);
        var _ = r.submit(add(1));
        CompletableFuture<Void> read = r.orderedRead(() -> c.read("A"));
        var _ = r.submit(add(2));
        assertEquals(List.of("atomic 0"), c.order, "the READ waits for atomic 0's response; atomic 1 behind it");
        assertFalse(read.isDone());
        r.onResponse(0, 0);
        assertEquals(List.of("atomic 0", "read A", "atomic 1"), c.order);
        assertTrue(read.isDone());
        // with nothing outstanding a READ goes at once
        r.onResponse(1, 0);
        var _ = r.orderedRead(() -> c.read("B"));
        assertEquals("read B", c.order.get(3));
    }

    @Test
    void failingFailsWhatWaitsWhatIsOutstandingAndWhatComesLater() {
        FakeConnection c = new FakeConnection();
        Requester r = new Requester(c, 1);
        CompletableFuture<Long> outstanding = r.submit(add(1));
        CompletableFuture<Long> waiting = r.submit(add(2));
        CompletableFuture<Void> read = r.orderedRead(() -> c.read("A"));
        IllegalStateException boom = new IllegalStateException("connection closed");
        r.failAll(boom);
        for (CompletableFuture<?> f : List.of(outstanding, waiting, read, r.submit(add(3)))) {
            ExecutionException e = assertThrows(ExecutionException.class, f::get);
            assertSame(boom, e.getCause());
        }
        assertEquals(1, c.posted.size());
    }

    @Test
    void aFailedPostReturnsItsCreditAndFailsOnlyItsRequest() throws Exception {
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        Requester r = new Requester(
                (template, index, assign) -> {
                    assign.assign();
                    if (template.addOrSwap() == 13) {
                        assign.notPosted();
                        return CompletableFuture.failedFuture(new IllegalArgumentException("bad"));
                    }
                    assign.posted();
                    CompletableFuture<Void> s = new CompletableFuture<>();
                    sends.add(s);
                    return s;
                },
                1);
        CompletableFuture<Long> bad = r.submit(add(13));
        CompletableFuture<Long> good = r.submit(add(1));
        assertThrows(ExecutionException.class, bad::get);
        assertEquals(1, sends.size(), "the credit came back: the next request went");
        r.onResponse(0, 7); // numbered 0: the failed post did not use up an identifier
        assertEquals(7L, good.get());
    }
}
