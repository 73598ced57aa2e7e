package org.panamardma.rpcrdma.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RpcEndpointTest {
    @Test
    void tcpAndRdmaWithNamesAndAddresses() {
        assertEquals(
                new RpcEndpoint(RpcEndpoint.Transport.TCP, "localhost", 2049),
                RpcEndpoint.parse(URI.create("tcp://localhost:2049")));
        assertEquals(
                new RpcEndpoint(RpcEndpoint.Transport.RDMA, "10.77.0.2", 20049),
                RpcEndpoint.parse(URI.create("rdma://10.77.0.2:20049")));
        assertEquals(
                new RpcEndpoint(RpcEndpoint.Transport.RDMA, "fe80::1", 20049),
                RpcEndpoint.parse(URI.create("RDMA://[fe80::1]:20049/")),
                "scheme case, IPv6, a bare slash");
        assertEquals(
                "rdma://[fe80::1]:20049",
                RpcEndpoint.parse(URI.create("rdma://[fe80::1]:20049")).toString());
        assertEquals("tcp://h:1", RpcEndpoint.parse(URI.create("tcp://h:1")).toString());
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "udp://host:111|unsupported scheme 'udp'",
                "http://host:80|unsupported scheme 'http'",
                "host:111|unsupported scheme 'host'",
                "//host:111|no scheme",
                "tcp:host:111|not host:port",
                "tcp://host|no port",
                "rdma://10.77.0.2|no port",
                "tcp://:111|no host",
                "tcp://bad_name:111|no host",
                "tcp://user@host:111|user info",
                "tcp://host:111/nfs|a path",
                "rdma://host:111?credits=4|a query",
                "rdma://host:111#x|a fragment",
                "tcp://host:0|port 0 not in",
                "tcp://host:70000|port 70000 not in",
            })
    void refusedWithAReason(String uri, String reason) {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> RpcEndpoint.parse(URI.create(uri)));
        assertTrue(e.getMessage().contains(reason), e.getMessage());
    }

    @Test
    void nullIsRefused() {
        assertThrows(NullPointerException.class, () -> RpcEndpoint.parse(null));
    }
}
