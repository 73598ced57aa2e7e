package org.panamardma.rpcrdma.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.panamardma.rpcrdma.ConnectPrivateData;

class RpcRdmaClientOptionsTest {
    @Test
    void defaultsAnnounceFourKibibytesBothWaysWithoutRemoteInvalidation() {
        RpcRdmaClientOptions o = RpcRdmaClientOptions.DEFAULTS;
        assertArrayEquals(
                new byte[] {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 1, 0, 3, 3},
                o.privateData().encode());
        assertEquals(4096, o.receiveBufferSize());
        assertEquals(64, o.maxRequests());
    }

    @Test
    void receiveBuffersNeverShrinkBelowFourKibibytesWhateverIsAnnounced() {
        RpcRdmaClientOptions tiny = RpcRdmaClientOptions.DEFAULTS.withInline(1024, 1024);
        assertEquals(1024, tiny.privateData().receiveSize());
        assertEquals(RpcRdmaClientOptions.MIN_RECEIVE_BUFFER, tiny.receiveBufferSize());
        assertEquals(
                65536, RpcRdmaClientOptions.DEFAULTS.withInline(4096, 65536).receiveBufferSize());
    }

    @Test
    void refusesWhatCannotBeAnnouncedOrHonoured() {
        RpcRdmaClientOptions d = RpcRdmaClientOptions.DEFAULTS;
        assertThrows(IllegalArgumentException.class, () -> d.withInline(1000, 4096));
        assertThrows(IllegalArgumentException.class, () -> d.withInline(4096, 4097));
        assertThrows(IllegalArgumentException.class, () -> d.withInline(4096, ConnectPrivateData.MAX_SIZE + 1024));
        assertThrows(IllegalArgumentException.class, () -> d.withMaxRequests(0));
        assertThrows(NullPointerException.class, () -> d.withTimeouts(null, null));
    }

    @Test
    void pinnedMemoryBoundsDefaultTo64MibEachAndRefuseNegatives() {
        RpcRdmaClientOptions d = RpcRdmaClientOptions.DEFAULTS;
        assertEquals(64L << 20, d.bufferPoolBytes());
        assertEquals(64L << 20, d.registrationCacheBytes());
        RpcRdmaClientOptions none = d.withPinnedMemory(0, 0).withMaxRequests(8);
        assertEquals(0, none.bufferPoolBytes(), "kept by the other withers");
        assertEquals(0, none.registrationCacheBytes());
        assertEquals(
                d.withMaxRequests(8),
                new RpcRdmaClientOptions(4096, 4096, 8, 1024, 1024, false, d.connectTimeout(), d.callTimeout()),
                "the constructor of before takes the default bounds");
        assertThrows(IllegalArgumentException.class, () -> d.withPinnedMemory(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> d.withPinnedMemory(0, -1));
    }

    @Test
    void busyPollingIsOffUnlessAskedAndAtMostASecond() {
        RpcRdmaClientOptions d = RpcRdmaClientOptions.DEFAULTS;
        assertEquals(java.time.Duration.ZERO, d.busyPoll());
        java.time.Duration t = java.time.Duration.ofMillis(5);
        assertEquals(
                t,
                d.withBusyPoll(t)
                        .withMaxRequests(8)
                        .withPinnedMemory(0, 0)
                        .withInline(1024, 1024)
                        .withAlwaysReplyChunk(true)
                        .withChunkMinimums(0, 0)
                        .withTimeouts(d.connectTimeout(), d.callTimeout())
                        .busyPoll(),
                "kept by the other withers");
        assertThrows(IllegalArgumentException.class, () -> d.withBusyPoll(java.time.Duration.ofSeconds(2)));
        assertThrows(IllegalArgumentException.class, () -> d.withBusyPoll(java.time.Duration.ofMillis(-1)));
    }

    @Test
    void chunksAreExposedAsAutoChoosesUnlessAskedAndTheChoiceSurvivesTheOtherWithers() {
        RpcRdmaClientOptions d = RpcRdmaClientOptions.DEFAULTS;
        assertEquals(ChunkExposure.AUTO, d.exposure());
        RpcRdmaClientOptions w = d.withExposure(ChunkExposure.MEMORY_WINDOWS);
        assertEquals(
                ChunkExposure.MEMORY_WINDOWS,
                w.withBusyPoll(java.time.Duration.ofMillis(1))
                        .withMaxRequests(8)
                        .withPinnedMemory(0, 0)
                        .withInline(1024, 1024)
                        .withAlwaysReplyChunk(true)
                        .withChunkMinimums(0, 0)
                        .withTimeouts(d.connectTimeout(), d.callTimeout())
                        .exposure(),
                "kept by the other withers");
        assertEquals(
                ChunkExposure.AUTO,
                new RpcRdmaClientOptions(
                                4096,
                                4096,
                                8,
                                1024,
                                1024,
                                false,
                                d.connectTimeout(),
                                d.callTimeout(),
                                0,
                                0,
                                java.time.Duration.ZERO)
                        .exposure(),
                "the constructor of before chooses AUTO");
        assertThrows(NullPointerException.class, () -> d.withExposure(null));
    }
}
