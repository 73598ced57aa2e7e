package org.panamardma.verbs.connection;

import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** A reply's WRITEs and SEND in one post on Soft-iWARP (siw0 client, siw1 server). */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpSendChainDeviceTest extends SendChainDeviceTests {
    @Override
    boolean writeErrorsCompleteAtTheRequester() {
        return false;
    }
}
