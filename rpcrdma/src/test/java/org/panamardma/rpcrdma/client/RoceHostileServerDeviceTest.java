package org.panamardma.rpcrdma.client;

import java.util.List;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.Transport;

/** The hostile server on rxe1 against the client on rxe0: with the defaults, and with memory windows. */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceHostileServerDeviceTest extends HostileServerDeviceTests {
    @Override
    List<RpcRdmaClientOptions> exposures() {
        return List.of(defaults(), defaults().withExposure(ChunkExposure.MEMORY_WINDOWS));
    }
}
