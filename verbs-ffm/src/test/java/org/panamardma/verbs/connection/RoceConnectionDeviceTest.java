package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.Expect;
import org.panamardma.verbs.FlushScope;
import org.panamardma.verbs.FlushType;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.WcStatus;
import org.panamardma.verbs.WorkCompletionException;

/** The connection layer on Soft-RoCE (rxe0 client, rxe1 server): the common tests plus atomics and FLUSH. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceConnectionDeviceTest extends ConnectionDeviceTests {
    @Test
    void fetchAddCompareSwapFlushAndAtomicWriteThroughFutures(RdmaTestDevice device) throws Exception {
        try (Pair p = new Pair(device)) {
            Set<Access> access =
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
            if (Expect.rxeKernelFlushAndAtomicWrite()) {
                access.add(Access.FLUSH_GLOBAL); // a kernel without FLUSH refuses the flag
            }
            MemoryRegion target = p.serverSide.protectionDomain().allocate(4096, access);
            target.segment().set(ValueLayout.JAVA_LONG, 0, 40L);
            assertEquals(40L, await(p.client.fetchAdd(target.address(), target.rkey(), 2)));
            assertEquals(42L, await(p.client.fetchAdd(target.address(), target.rkey(), 1)));
            assertEquals(43L, target.segment().get(ValueLayout.JAVA_LONG, 0));
            assertEquals(43L, await(p.client.compareSwap(target.address(), target.rkey(), 43L, 7L)));
            assertEquals(7L, target.segment().get(ValueLayout.JAVA_LONG, 0));
            byte[] data = pattern(1024, 5);
            await(p.client.write(region(p.client, data), 0, data.length, target.address() + 512, target.rkey()));
            var flush = p.client.flush(
                    target.address() + 512, target.rkey(), data.length, FlushType.GLOBAL_VISIBILITY, FlushScope.RANGE);
            if (Expect.rxeFlush()) {
                await(flush);
            } else {
                // refused before posting: the future fails with the reason, and the connection stays usable
                Expect.assertFlushRefused(p.client.queuePair().deviceName(), () -> {
                    throw failure(flush);
                });
            }
            var atomicWrite = p.client.atomicWrite(target.address() + 8, target.rkey(), 0x1122334455667788L);
            if (Expect.rxeAtomicWrite()) {
                await(atomicWrite);
                assertEquals(0x1122334455667788L, target.segment().get(ValueLayout.JAVA_LONG, 8));
            } else {
                Expect.assertAtomicWriteRefused(p.client.queuePair().deviceName(), () -> {
                    throw failure(atomicWrite);
                });
            }
            assertEquals(7L, await(p.client.fetchAdd(target.address(), target.rkey(), 1)), "still connected");
        }
    }

    @Test
    void aFailedCompletionFailsItsFutureThenTheConnectionRefusesMore(RdmaTestDevice device) throws Exception {
        try (Pair p = new Pair(device)) {
            MemoryRegion local = region(p.client, new byte[64]);
            Throwable t = failure(p.client.write(local, 0, 64, 0x1000L, 0x12345));
            assertInstanceOf(WorkCompletionException.class, t, "bad rkey: " + t);
            System.out.println("bad rkey write failed with: " + t);
            assertTrue(((WorkCompletionException) t).status() != WcStatus.SUCCESS);
            assertInstanceOf(
                    ConnectionClosedException.class,
                    failure(p.client.write(local, 0, 64, local.remote())),
                    "after the QP error");
        }
    }
}
