package org.panamardma.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicInteger;
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

    private static final RdmaException CONNECT_TAKEN =
            new RdmaException("rdma_connect(rdma_cm id 0x1)", Errno.EADDRINUSE);

    @Test
    void aConnectWhosePortWasTakenTriesNewIdsUntilOneConnects() throws RdmaException {
        AtomicInteger attempts = new AtomicInteger();
        CmConnector.Connection connected = new CmConnector.Connection(null, null, null, null);
        assertSame(connected, CmConnector.onAFreePort(NAMED_PORT, () -> {
            if (attempts.incrementAndGet() < CmConnector.CONNECT_PORT_ATTEMPTS) {
                throw CONNECT_TAKEN;
            }
            return connected;
        }));
        assertEquals(CmConnector.CONNECT_PORT_ATTEMPTS, attempts.get());
    }

    @Test
    void aConnectGivesUpAfterItsAttemptsAndAtOnceOnAnyOtherFailure() {
        AtomicInteger attempts = new AtomicInteger();
        RdmaException last = new RdmaException("rdma_connect(rdma_cm id 0x3)", Errno.EADDRINUSE);
        RdmaException thrown = assertThrows(
                RdmaException.class,
                () -> CmConnector.onAFreePort(NAMED_PORT, () -> {
                    throw attempts.incrementAndGet() == CmConnector.CONNECT_PORT_ATTEMPTS ? last : CONNECT_TAKEN;
                }));
        assertSame(last, thrown);
        assertEquals(CmConnector.CONNECT_PORT_ATTEMPTS, attempts.get());
        assertEquals(CmConnector.CONNECT_PORT_ATTEMPTS - 1, thrown.getSuppressed().length, "the earlier ports");

        // refused, or an event: the server was reached, a second connect would be one more in its eyes
        attempts.set(0);
        RdmaException refused = new CmEventException(
                CmEventType.ESTABLISHED,
                new CmEvent(CmEventType.REJECTED, 0, null, null, ConnectionParameters.DEFAULTS, 0));
        assertSame(
                refused,
                assertThrows(
                        RdmaException.class,
                        () -> CmConnector.onAFreePort(NAMED_PORT, () -> {
                            attempts.incrementAndGet();
                            throw refused;
                        })));
        assertEquals(1, attempts.get());
        assertArrayEquals(new Throwable[0], refused.getSuppressed());
    }
}
