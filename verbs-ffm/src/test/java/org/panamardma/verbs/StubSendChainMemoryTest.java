package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * A {@link SendChain} builds its requests in native memory of an automatic arena and posts from it call after call
 * (a connection's SendQueue keeps one chain for its life), so that memory must stay reachable from the chain for as
 * long as the chain is, not only its address. Before this test the chain kept the addresses alone: the arena was
 * unreachable as soon as the constructor returned, its memory was freed at the next GC while the chain lived, and the
 * chain's next post handed the provider freed memory (SIGSEGV in librxe from the rpcrdma server's writesThenSend in
 * both VMs of a CI rehearsal). These tests watch the arena itself (a weak reference to its scope, which the arena's
 * cleaner waits on) across collections, then post and check that the provider saw exactly the requests built. Runs in
 * the surefire execution {@code stub-provider}.
 */
class StubSendChainMemoryTest extends StubLoopbackFixture {
    /** Collections the tests wait through (each one observed: a weak canary cleared). */
    private static final int COLLECTIONS = 3;

    /** A chain and a weak reference to the scope of the arena its requests are in (no strong one left here). */
    private record Watched(SendChain chain, WeakReference<MemorySegment.Scope> memory) {}

    private static Watched chainInAnArenaOfItsOwn(int capacity) {
        Arena memory = Arena.ofAuto();
        return new Watched(new SendChain(capacity, memory), new WeakReference<>(memory.scope()));
    }

    /**
     * Runs {@code n} full collections, each seen to happen (a weak canary cleared, at most 50 requests each: a
     * collection cannot be forced, only asked for), and waits for the reference handler and the cleaners to run
     * after each, as they do after a collection in a running program.
     */
    private static void collect(int n) throws InterruptedException {
        for (int i = 0; i < n; i++) {
            WeakReference<Object> canary = new WeakReference<>(new Object());
            for (int asked = 0; canary.get() != null && asked < 50; asked++) {
                System.gc();
                Thread.sleep(10);
            }
            assertNull(canary.get(), "no collection happened in 50 System.gc() calls");
            Thread.sleep(50);
        }
    }

    /**
     * The chain keeps its arena: after collections its scope is still there while the chain is. And the check sees a
     * freed arena when there is one: once the chain is unreachable, the same collections clear the reference (else
     * the first assertion would hold whatever the chain kept, and prove nothing).
     */
    @Test
    void theArenaOfAChainsRequestsLivesExactlyAsLongAsTheChain() throws InterruptedException {
        Watched watched = chainInAnArenaOfItsOwn(4);
        WeakReference<MemorySegment.Scope> memory = watched.memory();
        SendChain chain = watched.chain();
        watched = null;
        collect(COLLECTIONS);
        assertNotNull(
                memory.get(),
                "the arena of a live chain's requests was collected: its memory is freed while the chain posts from"
                        + " it");
        assertEquals(4, chain.capacity());
        Reference.reachabilityFence(chain);
        chain = null;
        collect(COLLECTIONS);
        assertNull(memory.get(), "an unreachable chain's arena was not collected: this test cannot see one go");
    }

    /**
     * A chain built and left through collections (after each the arena's cleaner has had its turn, as it has in a
     * running server), its arena seen alive, then posted twice: the provider completes exactly the four requests
     * built, with their wr_ids, opcodes and lengths (each length is its scatter/gather element's, read from the
     * chain's memory at the post). With the arena freed, the free itself overwrites the first request's wr_id and
     * next (malloc's free-list links), and the provider follows that next.
     */
    @TestFactory
    Stream<DynamicTest> aChainLeftThroughCollectionsPostsExactlyTheRequestsBuilt() {
        List<DynamicTest> tests = new ArrayList<>();
        for (StubLoopback l : new StubLoopback[] {legacy, extended, workRequests}) {
            tests.add(DynamicTest.dynamicTest("after collections (" + l.path + ")", () -> postAfterCollections(l)));
        }
        return tests.stream();
    }

    private static void postAfterCollections(StubLoopback l) throws Exception {
        Watched watched = chainInAnArenaOfItsOwn(4);
        WeakReference<MemorySegment.Scope> memory = watched.memory();
        SendChain chain = watched.chain();
        watched = null;
        long remote = l.remote.address();
        int rkey = l.remote.rkey();
        chain.write(1, l.local, 0, 8, remote, rkey, SendFlags.SIGNALED)
                .write(2, l.local, 8, 16, remote + 64, rkey, SendFlags.SIGNALED)
                .read(3, l.local, 64, 24, remote + 128, rkey, SendFlags.SIGNALED)
                .send(4, l.local, 128, 32, SendFlags.SIGNALED);
        collect(COLLECTIONS);
        assertNotNull(memory.get(), "the chain's arena was collected while the chain lives");
        try (WorkCompletions wc = WorkCompletions.allocate(8)) {
            for (int round = 0; round < 2; round++) {
                l.qp.postChain(chain);
                assertEquals(4, l.cq.poll(wc), "the chain's 4 requests completed, no more, no fewer");
                WcOpcode[] opcodes = {WcOpcode.RDMA_WRITE, WcOpcode.RDMA_WRITE, WcOpcode.RDMA_READ, WcOpcode.SEND};
                for (int i = 0; i < 4; i++) {
                    wc.check(i);
                    assertEquals(i + 1, wc.wrId(i), "wr_id of request " + i);
                    assertEquals(opcodes[i], wc.opcode(i), "opcode of request " + i);
                    assertEquals(8 * (i + 1), wc.byteLength(i), "length of request " + i);
                }
                assertEquals(0, l.cq.poll(wc), "nothing more");
            }
        }
        Reference.reachabilityFence(chain);
    }
}
