package org.panamardma.rpcrdma.server;

import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/** A client stalling mid-transfer on Soft-RoCE: the clients on rxe0, the server on rxe1. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceStalledPeerDeviceTest extends StalledPeerDeviceTests {
    @Test
    void aClientThatStopsAnsweringDuringTheWritesOfItsReplyIsCutOffAtTheDeadlineAndTheOthersGoOn(RdmaTestDevice device)
            throws Exception {
        aClientStallingDuringTheWritesOfItsReply(device);
    }
}
