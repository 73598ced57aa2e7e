package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.RdmaException;

/** The server's chunk buffer pool on the host, counting registrations as a device would make them. */
class LocalBufferPoolTest {
    /** A host registration: native memory of its own arena, freed (closed) by its deregistration. */
    record Reg(Arena arena, MemorySegment memory) {
    }

    /** Counts registrations as a device would make them. */
    static final class CountingRegistrar implements LocalBufferPool.Registrar<Reg> {
        final List<Long> allocated = new ArrayList<>();
        int deregistered;
        boolean fail;

        @Override
        public Reg allocate(long size) throws RdmaException {
            if (fail) {
                throw new RdmaException("ibv_reg_mr", 12);
            }
            allocated.add(size);
            Arena a = Arena.ofShared();
            return new Reg(a, a.allocate(size, 4096));
        }

        @Override
        public MemorySegment segment(Reg registration) {
            return registration.memory();
        }

        @Override
        public void deregister(Reg registration) {
            deregistered++;
            registration.arena().close();
        }
    }

    @Test
    void classesGrowByFourUpToTheLargestTransfer() {
        LocalBufferPool<Reg> pool = new LocalBufferPool<>(new CountingRegistrar(), 1 << 20, 0);
        assertArrayEquals(new long[] {4096, 16384, 65536, 262144, 1048576}, pool.classes());
        pool = new LocalBufferPool<>(new CountingRegistrar(), 100_000, 0);
        assertArrayEquals(new long[] {4096, 16384, 65536, 102400}, pool.classes(), "the top class holds the largest");
    }

    @Test
    void steadyLeasesRegisterNothingAfterTheFirst() throws Exception {
        CountingRegistrar r = new CountingRegistrar();
        LocalBufferPool<Reg> pool = new LocalBufferPool<>(r, 1 << 20, 4 << 20);
        for (int i = 0; i < 1000; i++) {
            LocalBufferPool<Reg>.Lease read = pool.lease(1 << 20);
            LocalBufferPool<Reg>.Lease small = pool.lease(100 + i);
            assertEquals(1 << 20, read.segment().byteSize());
            assertEquals(100 + i, small.segment().byteSize(), "exactly the bytes asked for");
            read.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, 0, (byte) i);
            assertTrue(read.release());
            assertTrue(small.release());
        }
        assertEquals(2, pool.registrations(), "the 1 MiB and the 4 KiB class, registered once each");
        assertEquals(List.of(2L << 20, 8192L), r.allocated, "two buffers of a class per registration");
        assertEquals(0, pool.deregistrations());
        assertEquals(0, pool.leased());
    }

    @Test
    void aLeaseGoesBackOnceHoweverOftenReleased() throws Exception {
        CountingRegistrar r = new CountingRegistrar();
        LocalBufferPool<Reg> pool = new LocalBufferPool<>(r, 1 << 20, 1 << 20);
        LocalBufferPool<Reg>.Lease a = pool.lease(5000);
        assertTrue(a.release());
        assertFalse(a.release(), "a second release (a Send's failure after its flush, say) gives nothing back");
        assertEquals(0, pool.leased());
        LocalBufferPool<Reg>.Lease b = pool.lease(5000);
        LocalBufferPool<Reg>.Lease c = pool.lease(5000);
        assertSame(a.registration(), b.registration(), "the buffer given back serves the next lease");
        assertEquals(a.offset(), b.offset());
        assertSame(b.registration(), c.registration(), "the second buffer of the class's registration");
        assertFalse(b.offset() == c.offset(), "never one buffer to two leases");
        assertEquals(1, pool.registrations());
    }

    /**
     * A reply's buffer comes back when its Send's completion is polled, maybe after the next call leased: two of a
     * class at once, one call at a time. That costs one registration per class, at its first use.
     */
    @Test
    void aReplyStillHeldAndTheNextCallShareOneRegistration() throws Exception {
        CountingRegistrar r = new CountingRegistrar();
        LocalBufferPool<Reg> pool = new LocalBufferPool<>(r, 1 << 20, 0);
        for (int i = 0; i < 100; i++) {
            LocalBufferPool<Reg>.Lease reply = pool.lease(65536);
            LocalBufferPool<Reg>.Lease next = pool.lease(65536); // before the reply's Send completion was polled
            reply.release();
            next.release();
        }
        assertEquals(1, pool.registrations());
        assertEquals(0, pool.deregistrations(), "paired classes are kept whatever the idle bound");
    }

    @Test
    void memoryBeyondTheIdleBoundIsDeregisteredWhenGivenBack() throws Exception {
        CountingRegistrar r = new CountingRegistrar();
        LocalBufferPool<Reg> pool = new LocalBufferPool<>(r, 4 << 20, 4 << 20);
        List<LocalBufferPool<Reg>.Lease> leases = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            leases.add(pool.lease(4 << 20)); // a burst of three calls in flight, above the paired classes
        }
        leases.forEach(LocalBufferPool.Lease::release);
        assertEquals(4 << 20, pool.idleBytes(), "one kept for later calls");
        assertEquals(2, r.deregistered, "the rest deregistered");
        assertThrows(IllegalStateException.class, () -> r.segment(leases.get(1).registration()).get(
                java.lang.foreign.ValueLayout.JAVA_BYTE, 0), "deregistered memory is gone, not reused");
    }

    @Test
    void aPoolOfNoIdleBytesRegistersPerLease() throws Exception {
        CountingRegistrar r = new CountingRegistrar();
        LocalBufferPool<Reg> pool = new LocalBufferPool<>(r, 4 << 20, 0);
        for (int i = 0; i < 3; i++) {
            pool.lease(3 << 20).release();
        }
        assertEquals(3, pool.registrations(), "a class above the paired ones, kept by no idle bound");
        assertEquals(3, pool.deregistrations());
    }

    @Test
    void closeDeregistersTheFreeAndLaterTheLeased() throws Exception {
        CountingRegistrar r = new CountingRegistrar();
        LocalBufferPool<Reg> pool = new LocalBufferPool<>(r, 1 << 20, 8 << 20);
        LocalBufferPool<Reg>.Lease held = pool.lease(65536);
        pool.lease(4096).release();
        pool.close();
        assertEquals(1, r.deregistered, "the free buffer at once");
        assertThrows(IllegalStateException.class, () -> pool.lease(4096));
        held.release(); // its Send completed (or was flushed) after the connection closed
        assertEquals(2, r.deregistered, "the leased one when given back");
        assertEquals(0, pool.leased());
        pool.close(); // idempotent
        assertEquals(2, r.deregistered);
    }

    @Test
    void hostileSizesAreRefusedAndAFailedRegistrationLeasesNothing() throws Exception {
        CountingRegistrar r = new CountingRegistrar();
        LocalBufferPool<Reg> pool = new LocalBufferPool<>(r, 1 << 20, 8 << 20);
        assertThrows(IllegalArgumentException.class, () -> pool.lease(0));
        assertThrows(IllegalArgumentException.class, () -> pool.lease((1 << 20) + 1));
        r.fail = true;
        assertThrows(RdmaException.class, () -> pool.lease(4096));
        assertEquals(0, pool.leased());
        assertEquals(0, pool.registrations());
    }
}
