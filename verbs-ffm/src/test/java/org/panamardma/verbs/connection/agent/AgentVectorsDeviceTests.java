package org.panamardma.verbs.connection.agent;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.extensions.Rfc7306;

/**
 * The agent's masked atomics against RFC 7306's model on a real device, 100,000 random vectors
 * ({@code -Dpanama.agent.vectors} changes it): apart from {@link AgentDeviceTests} because it is the longest of them
 * (1-3 minutes under emulation), so that the device suite can run it in one image per transport.
 */
abstract class AgentVectorsDeviceTests {
    /** The agent mode of both ends. */
    abstract AgentMode mode();

    /** How many random vectors the test runs. */
    static int vectors() {
        return Integer.getInteger("panama.agent.vectors", 100_000);
    }

    /**
     * RFC 7306 section 5.1's masked FetchAdd and CmpSwap, executed by the server's agent, against the reference model
     * ({@link Rfc7306}, the RFC's pseudo-code bit by bit): one word per vector, all pipelined (the ORD bounds what
     * is on the wire), each returned value and each final word compared.
     */
    @Test
    void maskedOperationsMatchTheRfc7306ModelOnRandomVectors(RdmaTestDevice device) throws Exception {
        int n = vectors();
        // the deepest pipeline, and pollers that spin between completions: under emulation a round trip waits for
        // the guest's scheduler (a thread woken on the other CPU starts at its next tick), not for the agent (with
        // them, 20,000 vectors took 14 s on siw and 38 s on rxe in the testbed, 8 and 3 times less than without)
        ConnectionOptions deep = AgentDeviceTests.BASE
                .withAgent(mode(), ConnectionOptions.MAX_AGENT_DEPTH)
                .withBusyPoll(Duration.ofMillis(Integer.getInteger("panama.agent.busyPollMillis", 20)));
        try (AgentDeviceTests.Setup s = new AgentDeviceTests.Setup(device, deep, deep, 1)) {
            MemoryRegion words = AgentDeviceTests.atomicRegion(s.serverSide(), 8L * n);
            SplittableRandom random = new SplittableRandom(29);
            long[] original = new long[n];
            long[][] operands = new long[n][4];
            boolean[] add = new boolean[n];
            for (int i = 0; i < n; i++) {
                original[i] = AtomicOpsTest.word(random);
                for (int j = 0; j < 4; j++) {
                    operands[i][j] = AtomicOpsTest.word(random);
                }
                add[i] = random.nextBoolean();
                words.segment().set(JAVA_LONG, 8L * i, original[i]);
            }
            long t0 = System.nanoTime();
            List<CompletableFuture<Long>> returned = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                long[] o = operands[i];
                long address = words.address() + 8L * i;
                returned.add(
                        add[i]
                                ? s.client().maskedFetchAdd(address, words.rkey(), o[0], o[1])
                                : s.client().maskedCompareSwap(address, words.rkey(), o[2], o[3], o[0], o[1]));
            }
            int mismatches = 0;
            for (int i = 0; i < n; i++) {
                long[] o = operands[i];
                long expected = add[i]
                        ? Rfc7306.maskedFetchAddResult(original[i], o[0], o[1])
                        : Rfc7306.maskedCompareSwapResult(original[i], o[2], o[3], o[0], o[1]);
                if (AgentDeviceTests.await(returned.get(i)) != original[i]
                        || words.segment().get(JAVA_LONG, 8L * i) != expected) {
                    mismatches++;
                }
            }
            System.out.printf(
                    "%d masked operations (%d FetchAdd) by the agent on %s in %d ms: %d mismatches%n",
                    n,
                    java.util.stream.IntStream.range(0, n).filter(i -> add[i]).count(),
                    device.name(),
                    (System.nanoTime() - t0) / 1_000_000,
                    mismatches);
            assertEquals(0, mismatches);
            assertEquals(n, s.serverSide().agentStatistics().orElseThrow().requestsExecuted(), "one request each");
        }
    }
}
