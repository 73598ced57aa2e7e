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
        assertEquals(2, pool.registrations(), "one 1 MiB and one 4 KiB buffer, registered once");
        assertEquals(List.of(1L << 20, 4096L), r.allocated);
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
        assertFalse(b.registration() == c.registration(), "never one buffer to two leases");
        assertEquals(2, pool.registrations());
    }

    @Test
    void memoryBeyondTheIdleBoundIsDeregisteredWhenGivenBack() throws Exception {
        CountingRegistrar r = new CountingRegistrar();
        LocalBufferPool<Reg> pool = new LocalBufferPool<>(r, 1 << 20, 1 << 20);
        List<LocalBufferPool<Reg>.Lease> leases = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            leases.add(pool.lease(1 << 20)); // a burst of three calls in flight
        }
        leases.forEach(LocalBufferPool.Lease::release);
        assertEquals(1 << 20, pool.idleBytes(), "one kept for later calls");
        assertEquals(2, r.deregistered, "the rest deregistered");
        assertThrows(IllegalStateException.class, () -> r.segment(leases.get(1).registration()).get(
                java.lang.foreign.ValueLayout.JAVA_BYTE, 0), "deregistered memory is gone, not reused");
    }

    @Test
    void aPoolOfNoIdleBytesRegistersPerLease() throws Exception {
        CountingRegistrar r = new CountingRegistrar();
        LocalBufferPool<Reg> pool = new LocalBufferPool<>(r, 1 << 20, 0);
        for (int i = 0; i < 3; i++) {
            pool.lease(4096).release();
        }
        assertEquals(3, pool.registrations());
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
