package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventException;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.ConnectionParameters;

/** Which failed connects RdmaClient tries again with a new rdma_cm id (the CM event cases run on the device). */
class RdmaClientRetryTest {
    @Test
    void aLocalPortTheTransportCouldNotBindIsTriedAgain() {
        // as Soft-iWARP reports it: rdma_connect fails when its TCP socket cannot bind rdma_cm's port
        assertTrue(
                RdmaClient.worthAnotherTry(new RdmaException("rdma_connect(rdma_cm id 0x1)", Errno.EADDRINUSE), true));
    }

    @Test
    void refusalsAndOtherErrorsAreNot() {
        assertFalse(RdmaClient.worthAnotherTry(
                new RdmaException("rdma_connect(rdma_cm id 0x1)", Errno.ECONNREFUSED), true));
        assertFalse(RdmaClient.worthAnotherTry(new RdmaException("rdma_resolve_addr", Errno.EADDRNOTAVAIL), true));
        assertFalse(RdmaClient.worthAnotherTry(new RdmaException("no errno here"), true));
    }

    @Test
    void anMpaReplyTimeoutIsTriedAgainOnIwarpOnly() {
        // iWARP's initiator has one timer on the MPA reply and no CM retries: a slow server ends the attempt
        assertTrue(RdmaClient.worthAnotherTry(event(CmEventType.UNREACHABLE, -Errno.ETIMEDOUT), true));
        // RoCE's CM sent its REQ up to 15 times before saying UNREACHABLE: another attempt would only wait longer
        assertFalse(RdmaClient.worthAnotherTry(event(CmEventType.UNREACHABLE, -Errno.ETIMEDOUT), false));
        // unreachable for another reason, and a refusal, are answers: not tried again on any transport
        assertFalse(RdmaClient.worthAnotherTry(event(CmEventType.UNREACHABLE, -Errno.ENETUNREACH), true));
        assertFalse(RdmaClient.worthAnotherTry(event(CmEventType.REJECTED, -Errno.ECONNREFUSED), true));
        assertTrue(RdmaClient.worthAnotherTry(event(CmEventType.CONNECT_ERROR, -Errno.EINVAL), false));
    }

    private static CmEventException event(CmEventType type, int status) {
        return new CmEventException(
                CmEventType.ESTABLISHED, new CmEvent(type, status, null, null, ConnectionParameters.DEFAULTS, 0));
    }
}
