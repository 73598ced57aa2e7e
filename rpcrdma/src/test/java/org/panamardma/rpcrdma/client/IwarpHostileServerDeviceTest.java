package org.panamardma.rpcrdma.client;

import java.util.List;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** The hostile server on siw1 against the client on siw0, with the defaults (siw has no memory windows). */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpHostileServerDeviceTest extends HostileServerDeviceTests {
    @Override
    List<RpcRdmaClientOptions> exposures() {
        return List.of(defaults());
    }
}
