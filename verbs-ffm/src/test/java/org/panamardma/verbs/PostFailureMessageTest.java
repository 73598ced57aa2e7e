package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * What a refused post says, for each way providers refuse: a full queue (ENOMEM, or ENOSPC from rxe's
 * ibv_wr_complete), a doorbell the kernel refused (EACCES from rxe, -1 and no errno from siw), anything else by its
 * errno alone. The device tests show the doorbell cases happen as said (BadInputDeviceTest on rxe,
 * IwarpCredentialsChangedPostDeviceTest on siw).
 */
class PostFailureMessageTest {
    private static RdmaException post(int rc) {
        return SendPath.postFailure("ibv_post_send", "queue pair 7 on dev0", rc, 16, "send");
    }

    @Test
    void aFullQueueSaysSoWithItsDepth() {
        for (int rc : new int[] {Errno.ENOMEM, -Errno.ENOMEM, Errno.ENOSPC}) {
            RdmaException e = post(rc);
            assertEquals(Math.abs(rc), e.errno());
            assertTrue(e.getMessage().contains("the send queue is full (16 outstanding requests)"), e.getMessage());
        }
    }

    @Test
    void rxesRefusedDoorbellNamesTheCredentialsRule() {
        RdmaException e = post(Errno.EACCES);
        assertEquals(Errno.EACCES, e.errno());
        assertTrue(e.getMessage().contains("credentials changed after the device was opened"), e.getMessage());
        assertTrue(e.getMessage().endsWith("failed: EACCES (13)"), e.getMessage());
        assertTrue(e instanceof DoorbellRefusedException, "the send queue's state is out of the poster's hands");
    }

    @Test
    void siwsMinusOneCarriesNoErrnoAndIsNotReadAsEperm() {
        RdmaException e = post(-1);
        assertEquals(0, e.errno(), "-1 is no errno");
        assertFalse(e.getMessage().contains("EPERM"), e.getMessage());
        assertTrue(e.getMessage().contains("siw does when the kernel refuses its doorbell"), e.getMessage());
        assertTrue(e.getMessage().endsWith("failed (no errno)"), e.getMessage());
        assertTrue(e instanceof DoorbellRefusedException, "the send queue's state is out of the poster's hands");
    }

    /** Only the send queue has a doorbell: a receive post, or a refusal of any other kind, says nothing of it. */
    @Test
    void onlyARefusedSendDoorbellIsADoorbellRefusal() {
        assertFalse(post(Errno.EINVAL) instanceof DoorbellRefusedException);
        assertFalse(post(Errno.ENOMEM) instanceof DoorbellRefusedException);
        assertFalse(
                SendPath.postFailure("ibv_post_recv", "queue pair 7 on dev0", Errno.EACCES, 16, "receive")
                        instanceof DoorbellRefusedException);
    }

    @Test
    void anyOtherErrnoIsGivenByItsNameAlone() {
        RdmaException e = post(Errno.EINVAL);
        assertEquals("ibv_post_send on queue pair 7 on dev0 failed: EINVAL (22)", e.getMessage());
    }
}
