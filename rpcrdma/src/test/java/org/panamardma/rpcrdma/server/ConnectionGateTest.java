package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.limits.ConnectionAdmission;
import org.panamardma.oncrpc.limits.RateLimitedLog;
import org.panamardma.verbs.cm.ConnectionParameters;

/** {@link ConnectionGate}: what the RPC-over-RDMA server's listener admits, without a device. */
class ConnectionGateTest {
    private final ConnectionGate gate = new ConnectionGate(
            new ConnectionAdmission(3, 2),
            new RateLimitedLog(ConnectionGateTest.class, Duration.ofSeconds(10)),
            "test");

    private static Optional<InetSocketAddress> from(int last, int port) throws Exception {
        return Optional.of(new InetSocketAddress(InetAddress.getByAddress(new byte[] {10, 77, 0, (byte) last}), port));
    }

    @Test
    void aClientOfferingNoRdmaReadResourcesIsRefusedBeforeTheCaps() throws Exception {
        // as the server sees the request: initiatorDepth is the client's responder resources
        ConnectionParameters noReads = ConnectionParameters.DEFAULTS.withResources(16, 0);
        assertFalse(gate.admit(from(1, 1000), noReads).isPresent());
        assertEquals(1, gate.refusedForNoReadResources());
        assertEquals(0, gate.admission().open(), "it took no place");
    }

    @Test
    void perAddressAndTotalCapsAndPlacesGivenBack() throws Exception {
        ConnectionParameters ok = ConnectionParameters.DEFAULTS.withResources(16, 16);
        List<Runnable> releases = new ArrayList<>();
        releases.add(gate.admit(from(1, 1000), ok).orElseThrow());
        releases.add(gate.admit(from(1, 1001), ok).orElseThrow());
        assertFalse(gate.admit(from(1, 1002), ok).isPresent(), "a third from one address");
        releases.add(gate.admit(from(2, 1000), ok).orElseThrow());
        assertFalse(gate.admit(from(3, 1000), ok).isPresent(), "a fourth in all");
        assertEquals(1, gate.admission().refused(ConnectionAdmission.Refusal.ADDRESS_FULL));
        assertEquals(1, gate.admission().refused(ConnectionAdmission.Refusal.SERVER_FULL));
        releases.get(0).run();
        assertTrue(gate.admit(from(3, 1000), ok).isPresent(), "a place given back is a place to take");
        assertTrue(gate.admit(Optional.empty(), ok).isEmpty(), "full again, whatever the address");
    }
}
