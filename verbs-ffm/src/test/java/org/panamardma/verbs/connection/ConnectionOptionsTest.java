package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.panamardma.verbs.QueuePair;

class ConnectionOptionsTest {
    @Test
    void receivesArePostedOneByOneUnlessABatchIsAsked() {
        assertEquals(1, ConnectionOptions.DEFAULTS.receiveBatch());
        ConnectionOptions d = ConnectionOptions.DEFAULTS;
        assertEquals(
                1,
                new ConnectionOptions(8, 8, 1024, d.parameters(), d.timeout()).receiveBatch(),
                "the constructor of before posts one by one");
        ConnectionOptions batched = d.withReceiveBatch(8);
        assertEquals(8, batched.receiveBatch());
        assertEquals(
                8,
                batched.withTimeout(d.timeout())
                        .withReceiveBufferSize(2048)
                        .withParameters(d.parameters())
                        .receiveBatch(),
                "kept by the other withers");
    }

    @Test
    void aBatchMustFitTheReceiveQueueAndOnePost() {
        ConnectionOptions d = ConnectionOptions.DEFAULTS; // 16 receive buffers
        assertThrows(IllegalArgumentException.class, () -> d.withReceiveBatch(0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.withReceiveBatch(17));
        assertTrue(e.getMessage().contains("receive queue depth 16"), e.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> d.withQueueDepths(8, 1000).withReceiveBatch(QueuePair.MAX_RECEIVE_BATCH + 1));
        assertEquals(
                4,
                d.withReceiveBatch(16).withQueueDepths(8, 4).receiveBatch(),
                "fewer receive buffers shrink the batch rather than refuse the depths");
    }

    @Test
    void sendsAreAllSignaledUnlessAnIntervalIsAsked() {
        ConnectionOptions d = ConnectionOptions.DEFAULTS; // 32 send slots
        assertEquals(1, d.sendSignalInterval());
        assertEquals(
                8,
                d.withSendSignalInterval(8)
                        .withReceiveBatch(4)
                        .withTimeout(d.timeout())
                        .sendSignalInterval());
        assertThrows(IllegalArgumentException.class, () -> d.withSendSignalInterval(0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> d.withSendSignalInterval(33));
        assertTrue(e.getMessage().contains("send queue depth 32"), e.getMessage());
        assertEquals(
                4,
                d.withSendSignalInterval(32).withQueueDepths(4, 16).sendSignalInterval(),
                "a smaller send queue shrinks the interval rather than refuse the depths");
    }

    @Test
    void busyPollingIsOffUnlessAskedAndAtMostASecond() {
        ConnectionOptions d = ConnectionOptions.DEFAULTS;
        assertEquals(java.time.Duration.ZERO, d.busyPoll());
        java.time.Duration ms = java.time.Duration.ofMillis(2);
        assertEquals(
                ms,
                d.withBusyPoll(ms)
                        .withQueueDepths(8, 8)
                        .withSendSignalInterval(2)
                        .withReceiveBatch(2)
                        .withTimeout(d.timeout())
                        .withReceiveBufferSize(1024)
                        .withParameters(d.parameters())
                        .busyPoll(),
                "kept by the other withers");
        assertThrows(IllegalArgumentException.class, () -> d.withBusyPoll(java.time.Duration.ofNanos(-1)));
        assertThrows(IllegalArgumentException.class, () -> d.withBusyPoll(java.time.Duration.ofMillis(1001)));
        assertThrows(NullPointerException.class, () -> d.withBusyPoll(null));
    }
}
