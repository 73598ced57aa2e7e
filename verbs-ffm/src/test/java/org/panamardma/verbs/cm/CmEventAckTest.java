package org.panamardma.verbs.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.RdmaException;

/**
 * Every event read is acked exactly once whatever its copy does, and the copy's failure is the one a caller sees.
 * The ack is the seam EventChannel fills with {@code rdma_ack_cm_event}; here it records its calls and fails on
 * demand, which librdmacm's does only for a bad event pointer (EINVAL), so no device can show it.
 */
class CmEventAckTest {
    private final MemorySegment event = MemorySegment.ofArray(new byte[64]);
    private final List<MemorySegment> acked = new ArrayList<>();

    private CmEventAck.Ack acking() {
        return acked::add;
    }

    private CmEventAck.Ack failingAck() {
        return ev -> {
            acked.add(ev);
            throw new RdmaException("rdma_ack_cm_event", Errno.EINVAL);
        };
    }

    @Test
    void aCopiedEventIsAckedOnceAndItsCopyReturned() throws RdmaException {
        String copied = CmEventAck.copyThenAck(event, ev -> "ESTABLISHED", acking());
        assertEquals("ESTABLISHED", copied);
        assertEquals(List.of(event), acked);
    }

    @Test
    void aFailedAckAfterAGoodCopyIsThrownWithItsErrno() {
        RdmaException e =
                assertThrows(RdmaException.class, () -> CmEventAck.copyThenAck(event, ev -> "x", failingAck()));
        assertEquals(Errno.EINVAL, e.errno());
        assertEquals(List.of(event), acked);
    }

    @Test
    void anEventWhoseCopyFailsIsAckedAllTheSame() {
        IllegalArgumentException bad = new IllegalArgumentException("unknown rdma_cm event type 99");
        IllegalArgumentException thrown = assertThrows(
                IllegalArgumentException.class,
                () -> CmEventAck.copyThenAck(
                        event,
                        ev -> {
                            throw bad;
                        },
                        acking()));
        assertSame(bad, thrown);
        assertEquals(List.of(event), acked, "acked once: else rdma_destroy_id of its id waits for ever");
        assertArrayEquals(new Throwable[0], thrown.getSuppressed());
    }

    /**
     * The fix of f44fe1e: the ack in a {@code finally} threw its own RdmaException over the copy's, and the reason the
     * event could not be read was lost. Fails on the code before it (RdmaException thrown).
     */
    @Test
    void whenCopyAndAckBothFailTheCopysFailureIsThrownAndTheAcksRidesAlong() {
        IllegalStateException bad = new IllegalStateException("private data longer than the event says");
        IllegalStateException thrown = assertThrows(
                IllegalStateException.class,
                () -> CmEventAck.copyThenAck(
                        event,
                        ev -> {
                            throw bad;
                        },
                        failingAck()));
        assertSame(bad, thrown);
        assertEquals(1, thrown.getSuppressed().length);
        RdmaException ack = (RdmaException) thrown.getSuppressed()[0];
        assertEquals(Errno.EINVAL, ack.errno());
        assertEquals(List.of(event), acked);
    }

    @Test
    void anErrorInTheCopyStillAcksTheEvent() {
        StackOverflowError error = new StackOverflowError();
        assertSame(
                error,
                assertThrows(
                        StackOverflowError.class,
                        () -> CmEventAck.copyThenAck(
                                event,
                                ev -> {
                                    throw error;
                                },
                                acking())));
        assertEquals(List.of(event), acked);
    }
}
