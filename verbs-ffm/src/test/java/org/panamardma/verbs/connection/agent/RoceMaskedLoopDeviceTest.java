package org.panamardma.verbs.connection.agent;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.TestAccess;
import org.panamardma.verbs.connection.ConnectionCapabilities;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.extensions.Rfc7306;

/**
 * RFC 7306's masked atomics by the connection's compare-and-swap loops over Soft-RoCE's own atomics, the agent off
 * (MaskedAtomicLoop, whose host test plays its races with a simulated word): the server's memory, changed by the
 * device, against the RFC's model, and four clients racing on one word, so that CmpSwaps are lost and retried.
 */
@RdmaDeviceTest(transport = Transport.ROCE)
class RoceMaskedLoopDeviceTest {
    private static final ConnectionOptions DEVICE_ATOMICS = AgentDeviceTests.BASE.withAgent(AgentMode.OFF);

    @Test
    void maskedOperationsByCmpSwapLoopsMatchTheRfc7306Model(RdmaTestDevice device) throws Exception {
        int n = 500;
        try (AgentDeviceTests.Setup s = new AgentDeviceTests.Setup(device, DEVICE_ATOMICS, DEVICE_ATOMICS, 1)) {
            RdmaConnection client = s.client();
            assertEquals(
                    ConnectionCapabilities.Provider.DEVICE,
                    client.capabilities().maskedAtomics());
            assertTrue(s.serverSide().agentStatistics().isEmpty(), "no agent: the loops run on the device's CmpSwap");
            MemoryRegion words = AgentDeviceTests.atomicRegion(s.serverSide(), 8L * n);
            SplittableRandom random = new SplittableRandom(7306);
            long[] original = new long[n];
            long[][] o = new long[n][4];
            boolean[] add = new boolean[n];
            for (int i = 0; i < n; i++) {
                original[i] = AtomicOpsTest.word(random);
                for (int j = 0; j < 4; j++) {
                    o[i][j] = AtomicOpsTest.word(random);
                }
                add[i] = random.nextBoolean();
                words.segment().set(JAVA_LONG, 8L * i, original[i]);
            }
            List<CompletableFuture<Long>> returned = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                long address = words.address() + 8L * i;
                returned.add(
                        add[i]
                                ? client.maskedFetchAdd(address, words.rkey(), o[i][0], o[i][1])
                                : client.maskedCompareSwap(address, words.rkey(), o[i][2], o[i][3], o[i][0], o[i][1]));
            }
            for (int i = 0; i < n; i++) {
                long expected = add[i]
                        ? Rfc7306.maskedFetchAddResult(original[i], o[i][0], o[i][1])
                        : Rfc7306.maskedCompareSwapResult(original[i], o[i][2], o[i][3], o[i][0], o[i][1]);
                assertEquals(original[i], AgentDeviceTests.await(returned.get(i)), "vector " + i + ": value replaced");
                assertEquals(expected, words.segment().get(JAVA_LONG, 8L * i), "vector " + i + ": the server's word");
            }
        }
    }

    @Test
    void fourClientsRacingOnOneWordLoseNoFieldwiseAdd(RdmaTestDevice device) throws Exception {
        int clients = 4;
        int each = 50;
        long addMask = 0x8000_0000_8000_0000L; // two 32-bit fields
        long add = 0x0000_0001_0000_0001L;
        try (AgentDeviceTests.Setup s = new AgentDeviceTests.Setup(device, DEVICE_ATOMICS, DEVICE_ATOMICS, clients)) {
            // one word in the server's memory, registered in each served connection's protection domain
            try (Arena arena = Arena.ofShared()) {
                MemorySegment word = arena.allocate(8, 8);
                word.set(JAVA_LONG, 0, 0xFFFF_FFF0L); // the low field wraps past zero meanwhile
                List<MemoryRegion> regions = new ArrayList<>();
                for (RdmaConnection served : s.served) {
                    regions.add(served.protectionDomain().register(word, TestAccess.ALL_REMOTE));
                }
                List<CompletableFuture<Long>> returned = new ArrayList<>();
                for (int k = 0; k < each; k++) {
                    for (int c = 0; c < clients; c++) {
                        returned.add(s.clients
                                .get(c)
                                .maskedFetchAdd(word.address(), regions.get(c).rkey(), add, addMask));
                    }
                }
                Set<Long> distinct = new HashSet<>();
                for (CompletableFuture<Long> f : returned) {
                    distinct.add(AgentDeviceTests.await(f));
                }
                int total = clients * each;
                assertEquals(total, distinct.size(), "each add replaced a value no other add replaced");
                long high = total;
                long low = (0xFFFF_FFF0L + total) & 0xFFFF_FFFFL; // no carry into the high field (RFC 7306 5.1.1)
                assertEquals((high << 32) | low, word.get(JAVA_LONG, 0));
                regions.forEach(MemoryRegion::close);
            }
        }
    }
}
