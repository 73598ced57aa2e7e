package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.RdmaException;

/**
 * Which failures of rdma_accept are the peer giving up (logged at INFO: a client's connect timing out and being
 * retried is a network event) and which are the server's trouble (WARNING).
 */
class RdmaServerAcceptFailureTest {

    @Test
    void aResetRefusedTimedOutOrAbortedAcceptIsThePeerGoingAway() {
        for (int errno : new int[] {Errno.ECONNRESET, Errno.ECONNREFUSED, Errno.ETIMEDOUT, Errno.ECONNABORTED}) {
            assertTrue(RdmaServer.peerWentAway(new RdmaException("rdma_accept", errno)), Errno.name(errno));
        }
    }

    @Test
    void resourceAndStateFailuresAreTheServersOwn() {
        for (int errno : new int[] {Errno.ENOMEM, Errno.EINVAL, Errno.EIO}) {
            assertFalse(RdmaServer.peerWentAway(new RdmaException("rdma_accept", errno)), Errno.name(errno));
        }
        assertFalse(RdmaServer.peerWentAway(new IllegalStateException("the server is closing")));
    }
}
