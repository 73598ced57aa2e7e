package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.RdmaException;

/** Which failed connects RdmaClient tries again with a new rdma_cm id (the CM event cases run on the device). */
class RdmaClientRetryTest {
    @Test
    void aLocalPortTheTransportCouldNotBindIsTriedAgain() {
        // as Soft-iWARP reports it: rdma_connect fails when its TCP socket cannot bind rdma_cm's port
        assertTrue(RdmaClient.worthAnotherTry(new RdmaException("rdma_connect(rdma_cm id 0x1)", Errno.EADDRINUSE)));
    }

    @Test
    void refusalsAndOtherErrorsAreNot() {
        assertFalse(RdmaClient.worthAnotherTry(new RdmaException("rdma_connect(rdma_cm id 0x1)", Errno.ECONNREFUSED)));
        assertFalse(RdmaClient.worthAnotherTry(new RdmaException("rdma_resolve_addr", Errno.EADDRNOTAVAIL)));
        assertFalse(RdmaClient.worthAnotherTry(new RdmaException("no errno here")));
    }
}
