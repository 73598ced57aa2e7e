package org.panamardma.rdmatool;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.panamardma.verbs.connection.ConnectionCapabilities;
import org.panamardma.verbs.connection.RdmaConnection;

/**
 * Part 2 of {@link Demo}: a counter in the server's memory incremented by every client at once with FetchAdd, each
 * old value checked to be distinct, then a CmpSwap that wins and one that loses (RFC 7306); by the device or, where
 * it has no atomics, by the RFC 7306 agent.
 */
final class DemoAtomics {
    /** What part 2 found; all null (and {@code distinct} false) when skipped. */
    record Outcome(Long counter, boolean distinct, Boolean casWon, Boolean casLost) {}

    private DemoAtomics() {}

    static Outcome run(
            List<RdmaConnection> clients,
            List<RemoteMemory> remotes,
            DemoServer server,
            ConnectionCapabilities.Provider atomics,
            int increments,
            Duration timeout,
            PrintStream out,
            List<String> skipped)
            throws Exception {
        int clientCount = clients.size();
        RdmaConnection first = clients.get(0);
        String clientDevice = first.deviceName();
        long expected = (long) clientCount * increments;
        Long counter = null;
        boolean distinct = false;
        Boolean casWon = null;
        Boolean casLost = null;
        out.println("2. A shared counter updated by every client at once (RFC 7306 remote atomics)");
        if (atomics == ConnectionCapabilities.Provider.NONE) {
            String why = clientDevice + " has no remote atomics (its atomic_cap is NONE, as on every Soft-iWARP "
                    + "device)\n   and the server did not accept the RFC 7306 agent: FetchAdd and CmpSwap are "
                    + "skipped.";
            skipped.add(why);
            out.println("   Skipped: " + why);
        } else {
            if (atomics == ConnectionCapabilities.Provider.AGENT) {
                out.printf(
                        "   %s has no remote atomics of its own (atomic_cap NONE, as on every Soft-iWARP device),%n"
                                + "   so they run BY THE RFC 7306 AGENT: each FetchAdd and CmpSwap travels as an Atomic%n"
                                + "   Request (RFC 7306 section 5) in a SEND; the server's agent checks the key, range and%n"
                                + "   rights as a device would, executes it atomically on its memory and answers with the%n"
                                + "   original value.%n",
                        clientDevice);
            }
            server.memory.set(JAVA_LONG, DemoServer.COUNTER, 0L);
            out.printf(
                    "   The counter in the server's memory starts at 0. Each of the %d clients adds 1 to it%n"
                            + "   %d times with FetchAdd, all at the same time, %s.%n",
                    clientCount,
                    increments,
                    atomics == ConnectionCapabilities.Provider.DEVICE
                            ? "without asking the server's CPU"
                            : "by the agent (the server's program does nothing)");
            List<CompletableFuture<Long>> olds = new ArrayList<>();
            for (int k = 0; k < increments; k++) {
                for (int c = 0; c < clientCount; c++) {
                    RemoteMemory r = remotes.get(c);
                    olds.add(clients.get(c).fetchAdd(r.address() + DemoServer.COUNTER, r.rkey(), 1L));
                }
            }
            BitSet seen = new BitSet();
            distinct = true;
            for (CompletableFuture<Long> f : olds) {
                long v = Demo.await(f, timeout);
                if (v < 0 || v >= expected || seen.get((int) v)) {
                    distinct = false;
                } else {
                    seen.set((int) v);
                }
            }
            counter = server.memory.get(JAVA_LONG, DemoServer.COUNTER);
            out.printf(
                    "   The counter now reads %d; %d clients x %d increments = %d: %s%n",
                    counter, clientCount, increments, expected, counter == expected ? "correct." : "WRONG!");
            out.printf(
                    "   %s%n",
                    distinct
                            ? "Each FetchAdd returned the value it replaced, and all " + expected
                                    + " of them were\n" + "   different (0 to " + (expected - 1)
                                    + "): no increment was lost or applied twice."
                            : "Some FetchAdds returned the same old value: increments were lost!");
            RemoteMemory r0 = remotes.get(0);
            long won = Demo.await(
                    first.compareSwap(r0.address() + DemoServer.COUNTER, r0.rkey(), expected, 1000L), timeout);
            casWon = won == expected && server.memory.get(JAVA_LONG, DemoServer.COUNTER) == 1000L;
            out.printf(
                    "   Client 1 uses CmpSwap: \"if the counter is still %d, make it 1000\". It was %d, so the swap%n"
                            + "   happened: the counter is now %d.%n",
                    expected, won, server.memory.get(JAVA_LONG, DemoServer.COUNTER));
            RdmaConnection second = clients.get(Math.min(1, clientCount - 1));
            RemoteMemory r1 = remotes.get(Math.min(1, clientCount - 1));
            long lost = Demo.await(
                    second.compareSwap(r1.address() + DemoServer.COUNTER, r1.rkey(), expected, 2000L), timeout);
            casLost = lost == 1000L && server.memory.get(JAVA_LONG, DemoServer.COUNTER) == 1000L;
            out.printf(
                    "   Client %d tries the same with 2000, but the counter is %d, not %d: its swap is refused,%n"
                            + "   the counter stays %d. That is how clients can take a lock or claim a slot safely.%n",
                    Math.min(2, clientCount), lost, expected, server.memory.get(JAVA_LONG, DemoServer.COUNTER));
        }
        return new Outcome(counter, distinct, casWon, casLost);
    }
}
