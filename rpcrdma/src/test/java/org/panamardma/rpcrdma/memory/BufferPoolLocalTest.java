package org.panamardma.rpcrdma.memory;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.RdmaException;

/**
 * A server connection's chunk pool ({@link BufferPool#forReplies}) on the host, counting registrations as a device
 * would make them (moved here from the server's own pool, which it replaced).
 */
class BufferPoolLocalTest {
    private final FakeRegistrar r = new FakeRegistrar();

    private BufferPool pool(long largest, long idleBytes) {
        return BufferPool.forReplies("test connection", r, largest, idleBytes);
    }

    @Test
    void classesGrowByFourUpToTheLargestTransfer() {
        // each by fours but the first followed by one a page larger: a transfer and a call's header
        assertArrayEquals(
                new long[] {4096, 16384, 20480, 65536, 69632, 262144, 266240, 1048576},
                pool(1 << 20, 0).classSizes());
        assertArrayEquals(
                new long[] {4096, 16384, 20480, 65536, 69632, 102400},
                pool(100_000, 0).classSizes(),
                "the top class holds the largest");
        // an NFS server's calls: 1 MiB of data and 64 KiB for the rest
        assertArrayEquals(
                new long[] {4096, 16384, 20480, 65536, 69632, 262144, 266240, 1048576, 1052672, 1114112},
                pool((1 << 20) + (64 << 10), 0).classSizes());
    }

    @Test
    void aCallOfAChunkAndItsHeaderTakesAClassAPageLargerNotFourTimesAsLarge() throws Exception {
        BufferPool pool = pool((1 << 20) + (64 << 10), 0);
        Lease l = pool.lease((256 << 10) + 300); // an NFS WRITE of 256 KiB, assembled with its header
        assertEquals(300 + (256 << 10), l.segment().byteSize());
        l.region();
        // its class's slab, two buffers, registered whole: 2 x 260 KiB, not 2 x 1 MiB
        assertEquals(
                List.of(2L * ((256 << 10) + 4096)),
                r.live.values().stream().map(live -> live.segment().byteSize()).toList());
        l.release();
    }

    /** Issue 26: the server registers nothing for remote access; every key it makes gives a peer nothing. */
    @Test
    void everyRegistrationIsLocalWriteOnlyAndNoLocalRightIsRemote() throws Exception {
        BufferPool pool = pool(4 << 20, 4 << 20);
        for (long size : new long[] {1, 16384, 65536, 1 << 20, 3 << 20}) { // a buffer of five classes
            Lease l = pool.lease(size);
            l.region();
            l.release();
        }
        assertEquals(5, r.live.size());
        for (FakeRegistrar.Live live : r.live.values()) {
            assertEquals(Set.of(Access.LOCAL_WRITE), live.access());
        }
        for (LocalRights rights : LocalRights.values()) {
            assertTrue(
                    rights.access().stream()
                            .noneMatch(a ->
                                    a == Access.REMOTE_READ || a == Access.REMOTE_WRITE || a == Access.REMOTE_ATOMIC),
                    rights + " has a remote right");
        }
        pool.close();
        assertTrue(r.live.isEmpty(), "close deregisters every slab no lease holds");
    }

    @Test
    void steadyLeasesRegisterNothingAfterTheFirst() throws Exception {
        BufferPool pool = pool(1 << 20, 4 << 20);
        for (int i = 0; i < 1000; i++) {
            Lease read = pool.lease(1 << 20);
            Lease small = pool.lease(100 + i);
            assertEquals(1 << 20, read.segment().byteSize());
            assertEquals(100 + i, small.segment().byteSize(), "exactly the bytes asked for");
            read.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) i);
            assertTrue(read.release());
            assertTrue(small.release());
        }
        assertEquals(2, pool.registrations(), "the 1 MiB and the 4 KiB class, registered once each");
        assertEquals(List.of(2L << 20, 8192L), r.sizes, "two buffers of a class per registration");
        assertEquals(0, pool.deregistrations());
        assertEquals(0, pool.leased());
    }

    @Test
    void aLeaseGoesBackOnceHoweverOftenReleased() throws Exception {
        BufferPool pool = pool(1 << 20, 1 << 20);
        Lease a = pool.lease(5000);
        assertTrue(a.release());
        assertFalse(a.release(), "a second release (a Send's failure after its flush, say) gives nothing back");
        assertEquals(0, pool.leased());
        Lease b = pool.lease(5000);
        Lease c = pool.lease(5000);
        assertSame(a.region(), b.region(), "the buffer given back serves the next lease");
        assertEquals(a.regionOffset(), b.regionOffset());
        assertSame(b.region(), c.region(), "the second buffer of the class's registration");
        assertFalse(b.regionOffset() == c.regionOffset(), "never one buffer to two leases");
        assertEquals(1, pool.registrations());
    }

    /**
     * A reply's buffer comes back when its Send's completion is polled, maybe after the next call leased: two of a
     * class at once, one call at a time. That costs one registration per class, at its first use.
     */
    @Test
    void aReplyStillHeldAndTheNextCallShareOneRegistration() throws Exception {
        BufferPool pool = pool(1 << 20, 0);
        for (int i = 0; i < 100; i++) {
            Lease reply = pool.lease(65536);
            Lease next = pool.lease(65536); // before the reply's Send completion was polled
            reply.release();
            next.release();
        }
        assertEquals(1, pool.registrations());
        assertEquals(0, pool.deregistrations(), "paired classes are kept whatever the idle bound");
    }

    @Test
    void memoryBeyondTheIdleBoundIsDeregisteredWhenGivenBack() throws Exception {
        BufferPool pool = pool(4 << 20, 4 << 20);
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            leases.add(pool.lease(4 << 20)); // a burst of three calls in flight, above the paired classes
        }
        MemorySegment second = leases.get(1).segment();
        leases.forEach(Lease::release);
        assertEquals(4 << 20, pool.idleBytes(), "one kept for later calls");
        assertEquals(2, r.deregistrations.get(), "the rest deregistered");
        assertThrows(
                IllegalStateException.class,
                () -> second.get(ValueLayout.JAVA_BYTE, 0),
                "deregistered memory is freed, not reused");
    }

    @Test
    void aPoolOfNoIdleBytesRegistersPerLease() throws Exception {
        BufferPool pool = pool(4 << 20, 0);
        for (int i = 0; i < 3; i++) {
            pool.lease(3 << 20).release();
        }
        assertEquals(3, pool.registrations(), "a class above the paired ones, kept by no idle bound");
        assertEquals(3, pool.deregistrations());
    }

    @Test
    void closeDeregistersTheFreeAndLaterTheLeased() throws Exception {
        BufferPool pool = pool(1 << 20, 8 << 20);
        Lease held = pool.lease(65536);
        pool.lease(4096).release();
        pool.close();
        assertEquals(1, r.deregistrations.get(), "the free buffer at once");
        assertThrows(IllegalStateException.class, () -> pool.lease(4096));
        held.release(); // its Send completed (or was flushed) after the connection closed
        assertEquals(2, r.deregistrations.get(), "the leased one when given back");
        assertEquals(0, pool.leased());
        pool.close(); // idempotent
        assertEquals(2, r.deregistrations.get());
    }

    @Test
    void hostileSizesAreRefusedAndAFailedRegistrationLeasesNothing() throws Exception {
        BufferPool pool = pool(1 << 20, 8 << 20);
        assertThrows(IllegalArgumentException.class, () -> pool.lease(0));
        assertThrows(IllegalArgumentException.class, () -> pool.lease((1 << 20) + 1));
        r.failNext = true;
        assertThrows(RdmaException.class, () -> pool.lease(4096));
        assertEquals(0, pool.leased());
        assertEquals(0, pool.registrations());
    }
}
