package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.panamardma.verbs.ffi.StubProvider;

/**
 * {@link QueuePair#postChain}: a reply's WRITEs and its SEND in one post, on the stub provider's device, which counts
 * the calls into its entry points (post_send, wr_start) and walks a request list as a provider does. One call per
 * chain on every path, the completions of the signaled requests only and in order, a provider's refusal in the middle
 * named with what was posted, bad input refused before anything is posted, and nothing allocated per chain. Before
 * issue 26's chain the reply's requests took one post each (RdmaConnection.writesThenSend). Runs in the surefire
 * execution {@code stub-provider}.
 */
class StubSendChainTest extends StubLoopbackFixture {

    private static Stream<DynamicTest> onEveryPath(String what, PathTest test) {
        List<DynamicTest> tests = new ArrayList<>();
        for (StubLoopback l : new StubLoopback[] {legacy, extended, workRequests}) {
            tests.add(DynamicTest.dynamicTest(what + " (" + l.path + ")", () -> test.run(l)));
        }
        return tests.stream();
    }

    @FunctionalInterface
    interface PathTest {
        void run(StubLoopback l) throws Exception;
    }

    /** Three unsignaled WRITEs and a signaled SEND, as a reply. */
    private static SendChain reply(StubLoopback l, SendChain chain, long firstId) {
        chain.clear();
        for (int i = 0; i < 3; i++) {
            chain.write(firstId + i, l.local, 8L * i, 8, l.remote.address() + 8L * i, l.remote.rkey(), SendFlags.NONE);
        }
        return chain.send(firstId + 3, l.local, 0, StubLoopback.LENGTH, SendFlags.SIGNALED);
    }

    @TestFactory
    Stream<DynamicTest> aReplyOfThreeWritesAndASendIsOneCallIntoTheProviderAndOneCompletion() {
        return onEveryPath("one call per reply", l -> {
            try (WorkCompletions wc = WorkCompletions.allocate(8)) {
                SendChain chain = new SendChain(8);
                long[] before = StubProvider.callCounts();
                for (int r = 0; r < 10; r++) {
                    l.qp.postChain(reply(l, chain, 100L * r));
                    assertEquals(1, l.cq.poll(wc), "the SEND's completion only: the WRITEs are unsignaled");
                    wc.check(0);
                    assertEquals(100L * r + 3, wc.wrId(0));
                    assertEquals(WcOpcode.SEND, wc.opcode(0));
                }
                long[] after = StubProvider.callCounts();
                boolean workRequestPath = l.path == StubLoopback.Path.WORK_REQUESTS;
                assertEquals(workRequestPath ? 0 : 10, after[0] - before[0], "ibv_post_send calls for 10 replies");
                assertEquals(workRequestPath ? 10 : 0, after[1] - before[1], "ibv_wr_start calls for 10 replies");
            }
        });
    }

    @TestFactory
    Stream<DynamicTest> signaledRequestsOfAChainCompleteInOrderWithTheirIdsAndOpcodes() {
        return onEveryPath("in order", l -> {
            try (WorkCompletions wc = WorkCompletions.allocate(8)) {
                SendChain chain = new SendChain(4)
                        .write(1, l.local, 0, 8, l.remote.address(), l.remote.rkey(), SendFlags.SIGNALED)
                        .read(2, l.local, 8, 8, l.remote.address(), l.remote.rkey(), SendFlags.SIGNALED)
                        .sendWithImmediate(3, l.local, 16, 8, 0x01020304, SendFlags.SIGNALED)
                        .send(4, l.local, 24, 8, SendFlags.SIGNALED);
                l.qp.postChain(chain);
                assertEquals(4, l.cq.poll(wc));
                WcOpcode[] opcodes = {WcOpcode.RDMA_WRITE, WcOpcode.RDMA_READ, WcOpcode.SEND, WcOpcode.SEND};
                for (int i = 0; i < 4; i++) {
                    wc.check(i);
                    assertEquals(i + 1, wc.wrId(i));
                    assertEquals(opcodes[i], wc.opcode(i));
                    assertEquals(8, wc.byteLength(i));
                }
                // the provider copied the requests into its queue during the post: the chain is reusable at once
                chain.clear().send(5, l.local, 0, 8, SendFlags.SIGNALED);
                l.qp.postChain(chain);
                assertEquals(1, l.cq.poll(wc));
                assertEquals(5, wc.wrId(0));
            }
        });
    }

    /**
     * The requests live in the chain's own memory, linked once: a post ends the list at the chain's last request for
     * the call and links it on again after. So a chain of 2 in a chain of capacity 4 posts 2 (not the 2 stale
     * requests after them), the same chain grown to 4 posts all 4, and a chain posted again as it is posts the same
     * requests again (a message-rate loop's reuse).
     */
    @TestFactory
    Stream<DynamicTest> aChainPostsExactlyItsOwnRequestsWhenGrownOrPostedAgain() {
        return onEveryPath("its own requests", l -> {
            try (WorkCompletions wc = WorkCompletions.allocate(8)) {
                SendChain chain = new SendChain(4);
                for (int i = 1; i <= 4; i++) { // stale requests 3 and 4 beyond the chain of 2 below
                    chain.write(i, l.local, 0, 8, l.remote.address(), l.remote.rkey(), SendFlags.SIGNALED);
                }
                chain.clear();
                chain.write(1, l.local, 0, 8, l.remote.address(), l.remote.rkey(), SendFlags.SIGNALED);
                chain.write(2, l.local, 8, 8, l.remote.address(), l.remote.rkey(), SendFlags.SIGNALED);
                l.qp.postChain(chain);
                assertEquals(2, l.cq.poll(wc), "a chain of 2 posts 2");
                chain.send(3, l.local, 16, 8, SendFlags.SIGNALED).send(4, l.local, 24, 8, SendFlags.SIGNALED);
                for (int round = 0; round < 2; round++) {
                    l.qp.postChain(chain);
                    assertEquals(4, l.cq.poll(wc), "the grown chain posts all 4, again as it is");
                    for (int i = 0; i < 4; i++) {
                        wc.check(i);
                        assertEquals(i + 1, wc.wrId(i));
                        assertEquals(i < 2 ? WcOpcode.RDMA_WRITE : WcOpcode.SEND, wc.opcode(i));
                    }
                    assertEquals(0, l.cq.poll(wc), "nothing more");
                }
            }
        });
    }

    /**
     * The stub refuses a request whose completion does not fit the CQ (ENOMEM) and returns it as the bad request, as
     * a provider refuses one beyond its send queue: a chain of 6 signaled SENDs on a CQ of 4 free entries posts 4,
     * and the exception says request 4 was refused, 4 posted before it, none after it.
     */
    @Test
    void aRequestTheProviderRefusesInTheMiddleIsNamedWithThoseBeforeItPostedAndNoneAfter() throws Exception {
        for (boolean ext : new boolean[] {false, true}) {
            try (StubLoopback small = StubLoopback.open(ext, 8);
                    WorkCompletions wc = WorkCompletions.allocate(16)) {
                int free = small.cq.capacity();
                for (int i = 0; i < free - 4; i++) {
                    small.qp.postSend(1000 + i, small.local, 0, 8, SendFlags.SIGNALED); // leaves 4 entries free
                }
                SendChain chain = new SendChain(6);
                for (int i = 0; i < 6; i++) {
                    chain.send(i, small.local, 0, 8, SendFlags.SIGNALED);
                }
                ChainPostException e = assertThrows(ChainPostException.class, () -> small.qp.postChain(chain));
                assertEquals(4, e.postedRequests(), e.getMessage());
                assertEquals(6, e.chainLength());
                assertEquals(Errno.ENOMEM, e.errno(), e.getMessage());
                assertTrue(
                        e.getMessage().contains("request 4 refused, the 4 before it posted, none after it"),
                        e.getMessage());
                int polled = 0;
                List<Long> ids = new ArrayList<>();
                int n;
                while ((n = small.cq.poll(wc)) > 0) {
                    for (int i = 0; i < n; i++) {
                        ids.add(wc.wrId(i));
                    }
                    polled += n;
                }
                assertEquals(free, polled);
                assertEquals(
                        List.of(0L, 1L, 2L, 3L),
                        ids.subList(ids.size() - 4, ids.size()),
                        "the chain's first four, in order, and nothing of the two refused");
            }
        }
    }

    @Test
    void badInputIsRefusedBeforeAnythingIsPosted() throws Exception {
        QueuePair qp = legacy.qp;
        long[] before = StubProvider.callCounts();
        assertThrows(IllegalArgumentException.class, () -> new SendChain(0));
        assertThrows(IllegalArgumentException.class, () -> new SendChain(SendChain.MAX_REQUESTS + 1));
        IllegalArgumentException empty =
                assertThrows(IllegalArgumentException.class, () -> qp.postChain(new SendChain(2)));
        assertTrue(empty.getMessage().contains("empty"), empty.getMessage());
        SendChain full = new SendChain(1).send(1, legacy.local, 0, 8, SendFlags.SIGNALED);
        assertThrows(IllegalStateException.class, () -> full.send(2, legacy.local, 0, 8, SendFlags.SIGNALED));
        assertThrows(
                IllegalArgumentException.class, () -> new SendChain(1).send(1, legacy.local, 0, 8, SendFlags.INLINE));
        assertThrows(IllegalArgumentException.class, () -> new SendChain(1).send(1, legacy.local, 0, 8, 1 << 20));
        assertThrows(
                IndexOutOfBoundsException.class,
                () -> new SendChain(1).send(1, legacy.local, legacy.local.length() - 4, 8, SendFlags.SIGNALED));
        try (StubLoopback shallow = StubLoopback.open(false, 4)) {
            SendChain five = new SendChain(5);
            for (int i = 0; i < 5; i++) {
                five.send(i, shallow.local, 0, 8, SendFlags.SIGNALED);
            }
            long[] b = StubProvider.callCounts();
            IllegalArgumentException tooLong =
                    assertThrows(IllegalArgumentException.class, () -> shallow.qp.postChain(five));
            assertTrue(
                    tooLong.getMessage().contains("exceeds")
                            && tooLong.getMessage().contains("send queue of 4"),
                    tooLong.getMessage());
            assertEquals(b[0], StubProvider.callCounts()[0], "nothing posted");
            // a region closed after it was added: refused at the post, nothing posted
            MemoryRegion gone = shallow.pd.allocate(64, Set.of(Access.LOCAL_WRITE));
            SendChain withGone = new SendChain(2)
                    .send(1, shallow.local, 0, 8, SendFlags.SIGNALED)
                    .send(2, gone, 0, 8, SendFlags.SIGNALED);
            gone.close();
            assertThrows(IllegalStateException.class, () -> shallow.qp.postChain(withGone));
            try (WorkCompletions wc = WorkCompletions.allocate(4)) {
                assertEquals(0, shallow.cq.poll(wc), "not even the first request of the chain was posted");
            }
            // a closed QP: refused, not a crash
            SendChain one = new SendChain(1).send(1, shallow.local, 0, 8, SendFlags.SIGNALED);
            shallow.qp.close();
            assertThrows(IllegalStateException.class, () -> shallow.qp.postChain(one));
        }
        assertEquals(before[0], StubProvider.callCounts()[0], "bad input made no ibv_post_send");
    }

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /**
     * As {@link StubDataPathAllocationTest}: every path is warmed up before any is measured (the JIT compiles the
     * shared code with all of them profiled; a path measured before the others ran would see it recompiled).
     */
    @TestFactory
    Stream<DynamicTest> postingAndPollingChainsAllocatesNothing() throws Exception {
        try (WorkCompletions wc = WorkCompletions.allocate(8)) {
            SendChain chain = new SendChain(4);
            for (int pass = 0; pass < 2; pass++) {
                for (StubLoopback l : new StubLoopback[] {legacy, extended, workRequests}) {
                    chainRounds(l, chain, wc, 20_000);
                }
            }
        }
        return onEveryPath("allocation-free", l -> {
            try (WorkCompletions wc = WorkCompletions.allocate(8)) {
                SendChain chain = new SendChain(4);
                int rounds = 200_000;
                chainRounds(l, chain, wc, 20_000);
                long before = THREADS.getCurrentThreadAllocatedBytes();
                chainRounds(l, chain, wc, rounds);
                long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
                System.out.printf(
                        "[allocation] chains of 4 on the %s path: %d B over %,d chains%n", l.path, allocated, rounds);
                assertTrue(
                        allocated <= StubDataPathAllocationTest.HARNESS_BOUND,
                        allocated + " B over " + rounds + " chains");
            }
        });
    }

    private static void chainRounds(StubLoopback l, SendChain chain, WorkCompletions wc, int n) throws RdmaException {
        for (int i = 0; i < n; i++) {
            l.qp.postChain(reply(l, chain, 4L * i));
            if (l.cq.poll(wc) != 1 || wc.wrId(0) != 4L * i + 3 || !wc.isSuccess(0)) {
                throw new AssertionError("chain " + i + ": not its SEND's completion alone");
            }
        }
    }
}
