package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;

/** The connection layer on Soft-iWARP (siw0 client, siw1 server): the common tests; atomics are refused. */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpConnectionDeviceTest extends ConnectionDeviceTests {

    /**
     * siw in the testbed VM refuses the 47th or 48th connection of one process that holds both ends (47 QPs, CQs
     * and cm_ids on each of siw0 and siw1, per `rdma resource show`): ibv_create_cq fails with EAGAIN or
     * rdma_create_qp with EOPNOTSUPP, and the kernel logs nothing. Measured 2026-11-23; cause not yet found, so
     * the test opens 40 at once here and 64 on rxe.
     */
    @Override
    int concurrentConnections() {
        return 40;
    }

    @Test
    void atomicsFailTheirFutureWithUnsupportedOperationNamingSiw(RdmaTestDevice device) throws Exception {
        try (Pair p = new Pair(device)) {
            MemoryRegion target = p.serverSide.protectionDomain().allocate(64, Set.of(Access.LOCAL_WRITE,
                    Access.REMOTE_READ, Access.REMOTE_WRITE));
            Throwable t = failure(p.client.fetchAdd(target.address(), target.rkey(), 1));
            assertInstanceOf(UnsupportedOperationException.class, t);
            assertTrue(t.getMessage().contains(device.name()) && t.getMessage().contains("siw"), t.getMessage());
            System.out.println("siw refuses fetchAdd: " + t.getMessage());
            Throwable cas = failure(p.client.compareSwap(target.address(), target.rkey(), 0, 1));
            assertInstanceOf(UnsupportedOperationException.class, cas);
            // the refusal used no slot and left the connection usable
            byte[] data = pattern(256, 11);
            MemoryRegion local = region(p.client, data);
            MemoryRegion remote = region(p.serverSide, new byte[256]);
            await(p.client.write(local, 0, 256, remote.remote()));
            org.junit.jupiter.api.Assertions.assertArrayEquals(data, bytes(remote, 0, 256));
        }
    }
}
