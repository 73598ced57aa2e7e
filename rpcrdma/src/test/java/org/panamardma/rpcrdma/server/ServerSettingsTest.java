package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** The device-free parts of server configuration. */
class ServerSettingsTest {
    @Test
    void grantIsNeverZeroAndNeverAboveTheMaximum() {
        ConnectionSettings s = new ConnectionSettings(4096, 4096, 32, 1 << 20, 1 << 20, 16);
        assertEquals(1, s.grant(0));
        assertEquals(7, s.grant(7));
        assertEquals(32, s.grant(33));
        assertEquals(32, s.grant(0xffff_ffff), "an unsigned 2^32-1 request");
    }

    @Test
    void settingsBelowTheProtocolMinimumsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ConnectionSettings(512, 4096, 1, 4096, 4096, 1));
        assertThrows(IllegalArgumentException.class, () -> new ConnectionSettings(4096, 4096, 0, 4096, 4096, 1));
        assertThrows(IllegalArgumentException.class, () -> new ConnectionSettings(4096, 4096, 1, 1024, 4096, 1));
    }

    @Test
    void aServerNeedsAKnownPort() {
        RpcRdmaServer.Builder b = RpcRdmaServer.builder(EchoProgram.dispatcher());
        assertThrows(
                IllegalArgumentException.class,
                () -> b.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)));
    }
}
