package org.panamardma.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.RdmaException;

/**
 * Which failed listens CmConnector.listen (and netty-rdma's server bind) try again on another port, and the rule
 * every connect and listen shares: the port rdma_cm chose was taken by the transport.
 */
class ListenRetryTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress("10.77.1.2", 0);
    private static final InetSocketAddress NAMED_PORT = new InetSocketAddress("10.77.1.2", 20049);
    private static final RdmaException TAKEN = new RdmaException("rdma_listen(rdma_cm id 0x1)", Errno.EADDRINUSE);

    @Test
    void aPortRdmaCmChoseThatTcpHoldsIsTriedAgainWhileAttemptsAreLeft() {
        assertTrue(CmConnector.anotherPortMayListen(ANY_PORT, TAKEN, 1));
        assertTrue(CmConnector.anotherPortMayListen(ANY_PORT, TAKEN, CmConnector.LISTEN_ATTEMPTS - 1));
        assertFalse(CmConnector.anotherPortMayListen(ANY_PORT, TAKEN, CmConnector.LISTEN_ATTEMPTS));
    }

    @Test
    void aPortTheCallerNamedOrAnotherErrorIsNot() {
        // the caller chose the port: another one would not be what they asked for
        assertFalse(CmConnector.anotherPortMayListen(NAMED_PORT, TAKEN, 1));
        assertFalse(CmConnector.anotherPortMayListen(
                ANY_PORT, new RdmaException("rdma_bind_addr(rdma_cm id 0x1)", Errno.EADDRNOTAVAIL), 1));
        assertFalse(CmConnector.anotherPortMayListen(ANY_PORT, new RdmaException("no errno here"), 1));
    }

    @Test
    void onlyAVerbsOwnEaddrinuseSaysTheChosenPortWasTaken() {
        assertTrue(CmConnector.portChosenWasTaken(TAKEN));
        assertTrue(CmConnector.portChosenWasTaken(new RdmaException("rdma_connect(rdma_cm id 0x1)", Errno.EADDRINUSE)));
        // an event's status is the peer's or the CM's answer, not our bind
        assertFalse(CmConnector.portChosenWasTaken(new CmEventException(
                CmEventType.ESTABLISHED,
                new CmEvent(
                        CmEventType.CONNECT_ERROR, -Errno.EADDRINUSE, null, null, ConnectionParameters.DEFAULTS, 0))));
        assertFalse(
                CmConnector.portChosenWasTaken(new RdmaException("rdma_connect(rdma_cm id 0x1)", Errno.ECONNREFUSED)));
        assertFalse(CmConnector.portChosenWasTaken(new RdmaException("no errno here")));
    }
}
