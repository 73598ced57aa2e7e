package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.PmemDevice;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/** FLUSH to persistence (draft-talpey-rdma-commit section 4.1) into device-DAX persistent memory on rxe. */
@RdmaDeviceTest(transport = Transport.ROCE)
class PersistentFlushDeviceTest {

    /** Issue 25 item 7: at 5c5f9a1 a mapping beyond the device's end was made, its last pages raising SIGBUS. */
    @Test
    void aLengthBeyondTheDeviceOrOffItsAlignmentIsRefused(RdmaTestDevice device, PmemDevice pmem) {
        long beyond = pmem.size() > 0 ? pmem.size() + pmem.align() : 1L << 40; // a multiple of any alignment
        org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> PersistentMemory.map(pmem.path(), beyond));
        org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> PersistentMemory.map(pmem.path(), pmem.align() + 4096));
    }

    @Test
    void writeThenFlushToPersistenceOnPmem(RdmaTestDevice device, PmemDevice pmem) throws RdmaException {
        long length = pmem.align();
        try (RcPair pair = RcPair.open(device);
                PersistentMemory memory = PersistentMemory.map(pmem.path(), length)) {
            assertEquals(
                    Expect.rxeKernelFlushAndAtomicWrite(),
                    pair.ctxB.attributes().supportsFlushPersistent(),
                    "rxe reports FLUSH_PERSISTENT from Linux 6.2");
            if (!Expect.rxeFlush()) {
                // the library (rdma-core 44) or the kernel cannot: refused before anything is posted
                MemoryRegion plain =
                        pair.pdB.register(memory.segment(), Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
                Expect.assertFlushRefused(
                        pair.a.deviceName(),
                        () -> pair.a.postFlush(
                                2,
                                plain.address() + 4096,
                                plain.rkey(),
                                8192,
                                FlushType.PERSISTENCE,
                                FlushScope.RANGE,
                                SendFlags.SIGNALED));
                assertEquals(0, pair.cqA.poll(pair.wc), "nothing was posted");
                plain.close();
                return;
            }
            MemoryRegion target = pair.pdB.register(
                    memory.segment(),
                    Set.of(
                            Access.LOCAL_WRITE,
                            Access.REMOTE_WRITE,
                            Access.REMOTE_READ,
                            Access.FLUSH_PERSISTENT,
                            Access.FLUSH_GLOBAL));
            MemoryRegion source = pair.pdA.allocate(8192, TestAccess.ALL_REMOTE);
            byte[] data = new byte[8192];
            new Random(9).nextBytes(data);
            MemorySegment.copy(data, 0, source.segment(), ValueLayout.JAVA_BYTE, 0, data.length);

            pair.a.postWrite(1, source, 0, data.length, target.address() + 4096, target.rkey(), SendFlags.NONE);
            pair.a.postFlush(
                    2,
                    target.address() + 4096,
                    target.rkey(),
                    data.length,
                    FlushType.PERSISTENCE,
                    FlushScope.RANGE,
                    SendFlags.SIGNALED);
            pair.expectSuccess(pair.cqA, 2, WcOpcode.FLUSH);
            assertArrayEquals(data, target.segment().asSlice(4096, data.length).toArray(ValueLayout.JAVA_BYTE));
            target.close();
        }
    }
}
