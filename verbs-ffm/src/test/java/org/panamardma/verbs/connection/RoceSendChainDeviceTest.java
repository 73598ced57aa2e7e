package org.panamardma.verbs.connection;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** A reply's WRITEs and SEND in one post on Soft-RoCE (rxe0 client, rxe1 server). */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceSendChainDeviceTest extends SendChainDeviceTests {
    @Override
    boolean writeErrorsCompleteAtTheRequester() {
        return true;
    }
}
