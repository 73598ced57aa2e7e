package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.panamardma.rpcrdma.client.RpcRdmaClient;
import org.panamardma.rpcrdma.client.RpcRdmaClientOptions;
import org.panamardma.rpcrdma.memory.BufferPool;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testing.ChildJvm;

/**
 * A soak with kills (issue 12): one {@link RpcRdmaServer} (defaults of its builder) on the peer device, and
 * {@code soak.connections} client connections from the test device: all but {@code soak.victimConnections} of them
 * in this JVM (the survivors, {@code soak.depth} calling threads each), the rest in a separate client JVM
 * ({@link SoakVictim}) that calls continuously and is killed with SIGKILL ({@link Process#destroyForcibly()}) each
 * time {@code soak.killEvery} more calls have been answered, then started again; the last one is killed at the end.
 * Every call is one of {@link SoakCalls}: 0 B to 1 MiB, over every path (inline, Read chunks, Long Call, Write list,
 * Reply chunk), each reply checked for its path and its bytes.
 *
 * <p>What must hold: no wrong and no lost reply, on the survivors and in the victim while it lives; the server is back
 * to the survivors' connections after every kill; at every kill point the traffic is paused and the server device's
 * resource counts ({@code rdma resource show}) equal those with the survivors alone, and the client device's too (the
 * kernel freed what the killed process held); at the end both devices' counts equal those before the first
 * connection; the heap after GC at the end is within 10% (at least {@link #HEAP_NOISE_BYTES}) of the larger heap
 * after GC of the warm-up's end and the first kill point (the first {@code soak.killEvery} calls are the warm-up): a
 * leak puts the end above both, while the first kill's sample alone as the baseline, when low, made noise a failure.
 *
 * <p>Size: {@code -Dsoak.calls} (default 2000: the device suite's short run, one kill in the middle and one at the
 * end) and {@code -Dsoak.killEvery} (default 1000). The long run: {@code soft-roce-ci/tests/soak.sh} (see {@code rpcrdma/SOAK.md}).
 */
abstract class SoakDeviceTests {
    static final long CALLS = Long.getLong("soak.calls", 2000);
    static final long KILL_EVERY = Long.getLong("soak.killEvery", 1000);
    /** Kills during the run, every {@link #KILL_EVERY} calls; one more ends it. */
    static final long MID_RUN_KILLS = (CALLS - 1) / KILL_EVERY;

    static final int CONNECTIONS = Integer.getInteger("soak.connections", 8);
    static final int VICTIM_CONNECTIONS = Integer.getInteger("soak.victimConnections", 1);
    static final int DEPTH = Integer.getInteger("soak.depth", 1);
    static final Duration CALL_TIMEOUT = Duration.ofSeconds(Long.getLong("soak.callTimeoutSeconds", 120));
    /** How long the server may take to drop a killed client's connection, and a victim to connect and call. */
    static final Duration RECOVERY = Duration.ofSeconds(180);
    /** Rounds of {@link #RECOVERY} a victim that is still starting (using CPU) is given to connect. */
    static final int START_PATIENCE = 3;
    /** Replies the victim must have had checked in a life before it is killed (so it dies mid-traffic). */
    static final int VICTIM_MIN_CALLS = 10;

    static final double HEAP_GROWTH_ALLOWED = 0.10;
    /**
     * The least growth allowed, whatever 10% is. Between two samples of the heap after a full GC the live set moves
     * with no leak: by about 1 MiB when this class ran alone on 8-11 MiB (2026-11-26, four short soaks: +17.7%,
     * +12.6%, -14%, -17%), by 2.8 and 3.5 MiB in the whole device suite's JVM on 22-25 MiB (Debian 13 siw, the
     * samples 24.9, 22.1, 25.6 MiB, 2026-11-26, a fresh-machine CI run that this bound, then 2 MiB over the lowest
     * sample, failed). 4 MiB over the larger of the first two samples still fails a leak of 2 KiB a call over the short run's
     * 2,000 calls, or of 4 MiB per killed connection; the long soak (soak.sh, 10^5-10^6 calls) finds smaller ones.
     */
    static final long HEAP_NOISE_BYTES = 4L * 1024 * 1024;
    /** What a killed client leaves on the server until the server has dropped its connection. */
    static final Set<String> CONNECTION_RESOURCES = Set.of("pd", "cq", "qp", "cm_id");

    private static final AtomicInteger PORTS = new AtomicInteger(22_000 + new Random().nextInt(7_000));

    private final AtomicBoolean stop = new AtomicBoolean();
    private final ReentrantReadWriteLock pause = new ReentrantReadWriteLock(true);
    private final List<String> errors = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong errorCount = new AtomicLong();
    private final SoakCalls.PathCounts survivorCounts = new SoakCalls.PathCounts();
    /** Replies the victims have checked, over all their lives. */
    private final AtomicLong victimTotal = new AtomicLong();

    private final List<AutoCloseable> open = new ArrayList<>();
    private final List<Thread> workers = new ArrayList<>();
    private volatile Victim victim;
    /** {@link #chunkRegistrationsHeld} of the survivors once warmed up, when the client counts were taken. */
    private long survivorChunkMrsAtWarmUp;

    private long serverPoolMrsAtWarmUp;

    /** One life of the victim process. */
    final class Victim {
        final Process process;
        final AtomicLong done = new AtomicLong();
        final CountDownLatch connected = new CountDownLatch(1);
        final Thread reader;
        final long startedNanos = System.nanoTime();
        volatile long connectedNanos;
        final int life;

        Victim(Process process, int life) {
            this.process = process;
            this.life = life;
            this.reader = Thread.ofPlatform()
                    .daemon(true)
                    .name("victim-" + life + "-out")
                    .start(this::read);
        }

        private void read() {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream()))) {
                for (String line; (line = in.readLine()) != null; ) {
                    if (line.equals("started")) {
                        System.out.printf(
                                "soak: victim %d (pid %d) running %d ms after its start%n",
                                life, process.pid(), (System.nanoTime() - startedNanos) / 1_000_000);
                    } else if (line.equals("connecting")) {
                        System.out.printf(
                                "soak: victim %d connecting %d ms after its start%n",
                                life, (System.nanoTime() - startedNanos) / 1_000_000);
                    } else if (line.equals("connected")) {
                        System.out.printf(
                                "soak: victim %d connected %d ms after its start%n",
                                life, (System.nanoTime() - startedNanos) / 1_000_000);
                        connectedNanos = System.nanoTime();
                        connected.countDown();
                    } else if (line.startsWith("done ")) {
                        long now = Long.parseLong(line.substring(5));
                        victimTotal.addAndGet(now - done.getAndSet(now));
                    } else if (line.startsWith("wrong ") || line.startsWith("failed ")) {
                        error("victim " + life + ": " + line);
                    } else {
                        System.out.println("victim " + life + "| " + line);
                    }
                }
            } catch (IOException e) {
                // the process was killed while we read
            }
        }
    }

    @AfterEach
    void cleanUp() throws Exception {
        stop.set(true);
        Victim v = victim;
        if (v != null) {
            v.process.destroyForcibly().waitFor();
        }
        for (Thread t : workers) {
            t.join(TimeUnit.SECONDS.toMillis(2 * CALL_TIMEOUT.toSeconds()));
        }
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    void error(String what) {
        errorCount.incrementAndGet();
        if (errors.size() < 50) {
            errors.add(what);
        }
        System.out.println("soak: ERROR " + what);
        stop.set(true); // fail fast: a soak that went wrong need not run on
    }

    long victimDone() {
        return victimTotal.get();
    }

    /** Records a failed check as an error (the soak then stops) rather than throwing, so that the figures print. */
    void check(boolean ok, String what) {
        if (!ok) {
            error(what);
        }
    }

    long total() {
        return survivorCounts.calls.sum() + victimDone();
    }

    @Test
    void soakWithKills(RdmaTestDevice device) throws Exception {
        assertTrue(
                CALLS > 0 && KILL_EVERY > 0 && VICTIM_CONNECTIONS > 0 && CONNECTIONS > VICTIM_CONNECTIONS,
                "soak parameters");
        String clientDevice = device.name();
        String serverDevice = device.peer().orElseThrow().name();
        long start = System.nanoTime();
        Arena arena = Arena.ofShared();
        open.add(arena::close);
        MemorySegment base = SoakCalls.patternBase(arena);

        RpcRdmaServer server = RpcRdmaServer.builder(EchoProgram.dispatcher())
                .bind(new InetSocketAddress(RpcRdmaServerDeviceTests.peerAddress(device), PORTS.getAndIncrement()))
                .start();
        open.add(server);
        Map<String, Integer> serverBaseline = counts(serverDevice);
        Map<String, Integer> clientBaseline = counts(clientDevice);
        System.out.printf(
                "soak on %s -> %s (server %s): %d calls, a kill every %d, %d connections (%d in the "
                        + "victim process), %d calls in flight per connection%n",
                clientDevice,
                serverDevice,
                server.address(),
                CALLS,
                KILL_EVERY,
                CONNECTIONS,
                VICTIM_CONNECTIONS,
                DEPTH);

        // the survivors, each warmed up with one call of every shape
        List<RpcRdmaClient> survivors = new ArrayList<>();
        SplittableRandom seeds = new SplittableRandom(0x50A6);
        MemorySegment warmTarget = arena.allocate(SoakCalls.MAX_SIZE);
        for (int i = 0; i < CONNECTIONS - VICTIM_CONNECTIONS; i++) {
            RpcRdmaClient c = RpcRdmaClient.connect(
                    server.address(), RpcRdmaClientOptions.DEFAULTS.withTimeouts(CALL_TIMEOUT, CALL_TIMEOUT));
            open.add(c);
            survivors.add(c);
            for (SoakCalls.Shape shape : SoakCalls.Shape.values()) {
                int size = shape == SoakCalls.Shape.NULL ? 0 : shape == SoakCalls.Shape.INLINE ? 1000 : 70_000;
                SoakCalls.Spec spec = new SoakCalls.Spec(shape, size, i);
                String wrong = SoakCalls.call(c, base, warmTarget, spec, CALL_TIMEOUT);
                assertEquals(null, wrong, "warm-up call");
            }
        }
        Map<String, Integer> serverWithSurvivors = settledCounts(serverDevice);
        Map<String, Integer> clientWithSurvivors = settledCounts(clientDevice);
        survivorChunkMrsAtWarmUp = chunkRegistrationsHeld(survivors);
        serverPoolMrsAtWarmUp = serverPoolRegistrationsHeld(server);
        List<Long> heaps = new ArrayList<>();
        heaps.add(heapAfterGc());
        System.out.printf(
                "soak: %s baseline %s, with %d survivors %s; %s baseline %s, with survivors %s; heap "
                        + "after GC %.1f MiB%n",
                serverDevice,
                serverBaseline,
                survivors.size(),
                serverWithSurvivors,
                clientDevice,
                clientBaseline,
                clientWithSurvivors,
                heaps.get(0) / (double) SoakCalls.MiB);

        for (RpcRdmaClient c : survivors) {
            for (int d = 0; d < DEPTH; d++) {
                SoakCalls.Stream r = new SoakCalls.Stream(seeds.split());
                MemorySegment target = arena.allocate(SoakCalls.MAX_SIZE);
                workers.add(Thread.ofPlatform()
                        .name("soak-caller-" + workers.size())
                        .start(() -> callLoop(c, base, target, r)));
            }
        }
        long runStart = System.nanoTime();
        startVictim(server, 1);

        int kills = 0;
        List<Long> recoveryMillis = new ArrayList<>();
        /** One kill of the victim, its recovery checked ({@link #killCycle}); the last one ends the run. */
        interface Kill {
            void cycle(int n, boolean last) throws Exception;
        }
        Kill kill = (n, last) -> killCycle(
                server,
                serverDevice,
                clientDevice,
                serverWithSurvivors,
                clientWithSurvivors,
                survivors,
                recoveryMillis,
                heaps,
                n,
                last);
        long nextKill = KILL_EVERY;
        long lastPrint = System.nanoTime();
        while (!stop.get()) {
            Thread.sleep(100);
            long total = total();
            if (System.nanoTime() - lastPrint > TimeUnit.SECONDS.toNanos(30)) {
                lastPrint = System.nanoTime();
                double seconds = (lastPrint - runStart) / 1e9;
                System.out.printf(
                        "soak: %d calls (survivors %d, victim %d) in %.0f s, %.1f calls/s, %d kills%n",
                        total, survivorCounts.calls.sum(), victimDone(), seconds, total / seconds, kills);
            }
            // every kill in the schedule happens, however far the survivors ran ahead while a slow victim started
            // (a loaded testbed once took 9.9 s to connect it, and the calls passed the end before the kill: 1 of
            // 2 kills); the run ends only after them
            if (kills < MID_RUN_KILLS) {
                if (total >= nextKill && victimCalledEnough()) {
                    kills++;
                    kill.cycle(kills, false);
                    nextKill += KILL_EVERY;
                }
            } else if (total >= CALLS && victimCalledEnough()) {
                stop.set(true);
            }
            if (stop.get()) {
                break;
            }
            if (victim.process.isAlive()
                    && victim.connected.getCount() == 0
                    && System.nanoTime() - victim.connectedNanos > RECOVERY.toNanos()
                    && victim.done.get() < VICTIM_MIN_CALLS) {
                error("victim " + victim.life + " made " + victim.done.get() + " calls in " + RECOVERY);
            } else if (victim.connected.getCount() != 0) {
                error("victim " + victim.life + " did not connect");
            } else if (!victim.process.isAlive()) {
                error("victim " + victim.life + " exited by itself: " + victim.process.exitValue());
            }
        }
        for (Thread t : workers) {
            t.join();
        }
        long runMillis = (System.nanoTime() - runStart) / 1_000_000;
        kills++;
        kill.cycle(kills, true);

        for (RpcRdmaClient c : survivors) {
            c.close();
        }
        Map<String, Integer> serverEnd = awaitCounts(serverDevice, serverBaseline, null);
        Map<String, Integer> clientEnd = awaitCounts(clientDevice, clientBaseline, null);
        long totalMillis = (System.nanoTime() - start) / 1_000_000;

        ServerStatistics st = server.statistics();
        long heapEnd = heaps.get(heaps.size() - 1);
        // the larger of the samples at the warm-up's end and at the first kill: the heap has been that large without a
        // leak having had more than the warm-up's calls (not a later sample: the long soak's growth counts from here)
        long heapStart = heaps.subList(0, Math.min(2, heaps.size() - 1)).stream()
                .mapToLong(Long::longValue)
                .max()
                .orElse(heapEnd);
        long total = total();
        System.out.println("soak figures ----------------------------------------------------------------");
        System.out.printf(
                "devices: clients on %s, server on %s; %d connections, %d in the victim process%n",
                clientDevice, serverDevice, CONNECTIONS, VICTIM_CONNECTIONS);
        System.out.printf(
                "calls checked: %d (survivors %d, victim %d) in %.1f s of traffic: %.1f calls/s; " + "%d s in all%n",
                total,
                survivorCounts.calls.sum(),
                victimDone(),
                runMillis / 1000.0,
                total * 1000.0 / runMillis,
                totalMillis / 1000);
        System.out.println("survivors: " + survivorCounts);
        System.out.println("server: " + st + ", " + (st.inlineCalls() + st.readChunkCalls() + st.positionZeroCalls())
                + " calls received");
        System.out.printf(
                "kills: %d (SIGKILL), the server dropped the killed connection after %s ms%n", kills, recoveryMillis);
        System.out.printf("errors: %d %s%n", errorCount.get(), errors);
        System.out.printf(
                "%s: before %s, with survivors %s, after %s%n",
                serverDevice, serverBaseline, serverWithSurvivors, serverEnd);
        System.out.printf(
                "%s: before %s, with survivors %s, after %s%n",
                clientDevice, clientBaseline, clientWithSurvivors, clientEnd);
        System.out.printf(
                "heap after GC (MiB) at warm-up end, then at each kill: %s; baseline %.1f, end %.1f" + " (%+.1f%%)%n",
                heaps.stream()
                        .map(h -> String.format("%.1f", h / (double) SoakCalls.MiB))
                        .toList(),
                heapStart / (double) SoakCalls.MiB,
                heapEnd / (double) SoakCalls.MiB,
                100.0 * (heapEnd - heapStart) / heapStart);
        System.out.println("-----------------------------------------------------------------------------");

        assertEquals(List.of(), errors, errorCount.get() + " wrong or lost replies or failures");
        assertTrue(total >= CALLS, total + " calls checked");
        assertEquals((CALLS + KILL_EVERY - 1) / KILL_EVERY, kills, "kills");
        // every path taken, and the server saw at least what the survivors had checked
        assertTrue(
                survivorCounts.callInline.sum() > 0
                        && survivorCounts.callReadChunks.sum() > 0
                        && survivorCounts.callPositionZero.sum() > 0
                        && survivorCounts.replyInline.sum() > 0
                        && survivorCounts.replyWriteList.sum() > 0
                        && survivorCounts.replyChunk.sum() > 0,
                "every path: " + survivorCounts);
        if (survivorCounts.calls.sum() >= 20L * workers.size()) { // each stream's call 17 is 1 MiB
            assertTrue(survivorCounts.oneMiB.sum() > 0, "1 MiB calls: " + survivorCounts);
        }
        assertTrue(
                st.inlineCalls() >= survivorCounts.callInline.sum()
                        && st.readChunkCalls() >= survivorCounts.callReadChunks.sum()
                        && st.positionZeroCalls() >= survivorCounts.callPositionZero.sum()
                        && st.replies(ReplyPath.WRITE_LIST) >= survivorCounts.replyWriteList.sum()
                        && st.replies(ReplyPath.REPLY_CHUNK) >= survivorCounts.replyChunk.sum(),
                "server paths: " + st);
        assertTrue(st.inlineCalls() + st.readChunkCalls() + st.positionZeroCalls() >= total, "server calls: " + st);
        assertEquals(0, st.replies(ReplyPath.ERR_CHUNK) + st.replies(ReplyPath.ERR_VERS), "RDMA_ERROR replies");
        assertEquals(serverBaseline, serverEnd, serverDevice + " resources after the soak");
        assertEquals(clientBaseline, clientEnd, clientDevice + " resources after the soak");
        assertEquals(0, server.connectionCount(), "server connections after the soak");
        assertTrue(
                heapEnd - heapStart <= Math.max(heapStart * HEAP_GROWTH_ALLOWED, HEAP_NOISE_BYTES),
                String.format(
                        "heap after GC grew from %d (the baseline) to %d bytes (allowed: 10%% or %d bytes)",
                        heapStart, heapEnd, HEAP_NOISE_BYTES));
    }

    private boolean victimCalledEnough() {
        return victim.done.get() >= VICTIM_MIN_CALLS;
    }

    private void callLoop(RpcRdmaClient c, MemorySegment base, MemorySegment target, SoakCalls.Stream r) {
        while (!stop.get()) {
            pause.readLock().lock();
            try {
                if (stop.get()) {
                    return;
                }
                SoakCalls.Spec spec = r.next();
                try {
                    String wrong = SoakCalls.call(c, base, target, spec, CALL_TIMEOUT);
                    if (wrong != null) {
                        error("survivor " + c + ": wrong reply " + wrong);
                    } else {
                        survivorCounts.add(spec);
                    }
                } catch (ExecutionException | TimeoutException e) {
                    error("survivor " + c + ": lost reply " + spec + ": " + (e.getCause() != null ? e.getCause() : e));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            } finally {
                pause.readLock().unlock();
            }
        }
    }

    private void startVictim(RpcRdmaServer server, int life) throws Exception {
        List<String> command = victimCommand(server.address(), VICTIM_CONNECTIONS, DEPTH, life * 7919L, CALL_TIMEOUT);
        if (life == 1) {
            System.out.println("soak: victim command " + command);
        }
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        Victim v = new Victim(p, life);
        victim = v;
        awaitConnected(v);
    }

    /**
     * Waits, with the survivors paused, until the new victim has connected: under emulation a JVM that starts while
     * the survivors keep both CPUs busy takes over a minute to connect (measured: 70 s from main to connected on rxe,
     * the survivors making 2000 calls meanwhile), so the kill points would pass before it had made a call. The
     * kills themselves and the server's clean-up happen with the survivors calling. If it does not connect within
     * {@link #RECOVERY}, its threads (SIGQUIT) and the guest's busiest threads are printed.
     */
    private void awaitConnected(Victim v) throws Exception {
        long t0 = System.nanoTime();
        pause.writeLock().lock();
        try {
            // a JVM that is still working its way up (its CPU time grows) is given more time, up to
            // START_PATIENCE rounds of RECOVERY: on an overloaded host its start alone took over 3 minutes (CI
            // rehearsal with four emulated guests on two cores, its main thread still making FFM method handles);
            // one that has stopped making progress is reported after one round
            Duration cpuBefore = cpuTime(v.process);
            for (int round = 1; ; round++) {
                if (v.connected.await(RECOVERY.toSeconds(), TimeUnit.SECONDS) || !v.process.isAlive()) {
                    System.out.printf(
                            "soak: victim %d up, survivors paused %d ms for its start%n",
                            v.life, (System.nanoTime() - t0) / 1_000_000);
                    return;
                }
                Duration cpuNow = cpuTime(v.process);
                boolean progressing = cpuNow.compareTo(cpuBefore.plusSeconds(1)) > 0;
                if (!progressing || round == START_PATIENCE) {
                    break;
                }
                System.out.printf(
                        "soak: victim %d not connected after %d s, still starting (CPU time %d s): " + "waiting on%n",
                        v.life, (System.nanoTime() - t0) / 1_000_000_000L, cpuNow.toSeconds());
                cpuBefore = cpuNow;
            }
            System.out.printf(
                    "soak: victim %d not connected after %d s: its threads, the busiest threads%n",
                    v.life, (System.nanoTime() - t0) / 1_000_000_000L);
            new ProcessBuilder("kill", "-QUIT", String.valueOf(v.process.pid()))
                    .inheritIO()
                    .start()
                    .waitFor();
            new ProcessBuilder("sh", "-c", "ps -eLo pid,tid,pcpu,stat,comm --sort=-pcpu | head -n 25")
                    .inheritIO()
                    .start()
                    .waitFor();
            Thread.sleep(2000);
        } finally {
            pause.writeLock().unlock();
        }
    }

    /** The CPU time a process has used so far (zero where the system does not tell). */
    private static Duration cpuTime(Process p) {
        return p.info().totalCpuDuration().orElse(Duration.ZERO);
    }

    /** The command line of a {@link SoakVictim}: this JVM's java binary and the tests' class path. */
    static List<String> victimCommand(
            InetSocketAddress server, int connections, int depth, long seed, Duration timeout) {
        return ChildJvm.command(
                SoakVictim.class,
                ChildJvm.QUICK_START,
                server.getAddress().getHostAddress(),
                String.valueOf(server.getPort()),
                String.valueOf(connections),
                String.valueOf(depth),
                String.valueOf(seed),
                String.valueOf(timeout.toSeconds()));
    }

    /**
     * Kills the victim with SIGKILL while it calls (the survivors call on), waits until the server has dropped its
     * connections, then pauses the traffic to count resources and heap, and starts the next victim unless last.
     */
    private void killCycle(
            RpcRdmaServer server,
            String serverDevice,
            String clientDevice,
            Map<String, Integer> serverWithSurvivors,
            Map<String, Integer> clientWithSurvivors,
            List<RpcRdmaClient> survivors,
            List<Long> recoveryMillis,
            List<Long> heaps,
            int kill,
            boolean last)
            throws Exception {
        Victim v = victim;
        check(
                server.connectionCount() == CONNECTIONS,
                "server connections before kill " + kill + ": " + server.connectionCount());
        long calls = total();
        long t0 = System.nanoTime();
        v.process.destroyForcibly();
        if (!v.process.waitFor(60, TimeUnit.SECONDS)) {
            throw new AssertionError("victim " + v.life + " still there 60 s after SIGKILL");
        }
        v.reader.join(10_000);
        int exit = v.process.exitValue();
        long deadline = t0 + RECOVERY.toNanos();
        while (server.connectionCount() != survivors.size() && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        Map<String, Integer> connectionCounts = awaitCounts(serverDevice, serverWithSurvivors, CONNECTION_RESOURCES);
        long recovered = (System.nanoTime() - t0) / 1_000_000;
        recoveryMillis.add(recovered);
        System.out.printf(
                "soak: kill %d at %d calls: victim %d (%d calls in its life) exit %d; server connections "
                        + "%d, %s %s after %d ms%n",
                kill,
                calls,
                v.life,
                v.done.get(),
                exit,
                server.connectionCount(),
                serverDevice,
                connectionCounts,
                recovered);
        check(exit == 137, "victim " + v.life + " exit " + exit + ", not 128 + SIGKILL");
        check(
                server.connectionCount() == survivors.size(),
                "server connections after kill " + kill + ": " + server.connectionCount());
        check(
                select(connectionCounts, CONNECTION_RESOURCES)
                        .equals(select(serverWithSurvivors, CONNECTION_RESOURCES)),
                serverDevice + " connection resources after kill " + kill + ": " + connectionCounts);

        pause.writeLock().lock(); // the survivors' calls in flight end; no new one starts
        try {
            Map<String, Integer> serverExpected = withServerPoolRegistrations(serverWithSurvivors, server);
            Map<String, Integer> serverNow = awaitCounts(serverDevice, serverExpected, null);
            Map<String, Integer> clientExpected = withChunkRegistrations(clientWithSurvivors, survivors);
            Map<String, Integer> clientNow = awaitCounts(clientDevice, clientExpected, null);
            heaps.add(heapAfterGc());
            System.out.printf(
                    "soak: paused after kill %d: %s %s, %s %s, heap after GC %.1f MiB%n",
                    kill,
                    serverDevice,
                    serverNow,
                    clientDevice,
                    clientNow,
                    heaps.get(heaps.size() - 1) / (double) SoakCalls.MiB);
            check(
                    serverExpected.equals(serverNow),
                    serverDevice + " resources after kill " + kill + ": "
                            + serverNow + ", not " + serverExpected + " (with the survivors' server pools: "
                            + serverPoolRegistrationsHeld(server) + " registrations, " + serverPoolMrsAtWarmUp
                            + " after the warm-up)");
            check(
                    clientExpected.equals(clientNow),
                    clientDevice + " resources after kill " + kill + ": "
                            + clientNow + ", not " + clientExpected + " (with the survivors' chunk registrations: "
                            + chunkRegistrationsHeld(survivors) + ", " + survivorChunkMrsAtWarmUp
                            + " after the warm-up)");
        } finally {
            pause.writeLock().unlock();
        }
        if (!last && !stop.get()) {
            startVictim(server, v.life + 1);
        }
    }

    /**
     * Memory registrations the survivors hold for calls' chunks: their buffer pools' slabs and their registration
     * caches' entries grow with the sizes and addresses the calls use (within the clients' pinned-memory bounds), so
     * the client device's MR count legitimately moves between kill points; every other count must not.
     */
    static long chunkRegistrationsHeld(List<RpcRdmaClient> clients) {
        long held = 0;
        for (RpcRdmaClient c : clients) {
            held += c.registrations() - c.deregistrations();
        }
        return held;
    }

    /**
     * The client device's expected counts now: those with the survivors after their warm-up, with the MRs the
     * survivors' chunk registrations gained or dropped since (read while their calls are paused, so none is in
     * flight); any MR beyond those is a leak, any other change a fault.
     */
    private Map<String, Integer> withChunkRegistrations(
            Map<String, Integer> withSurvivors, List<RpcRdmaClient> survivors) {
        Map<String, Integer> expected = new TreeMap<>(withSurvivors);
        long delta = chunkRegistrationsHeld(survivors) - survivorChunkMrsAtWarmUp;
        expected.put("mr", Math.toIntExact(expected.getOrDefault("mr", 0) + delta));
        return expected;
    }

    /**
     * Registrations the server's connections hold in their reply pools (BufferPool.forReplies, LOCAL_WRITE only): a pool
     * registers its size classes as the calls first need them and keeps them up to its idle bound, so the server
     * device's MR count legitimately grows with the survivors' traffic between kill points.
     */
    static long serverPoolRegistrationsHeld(RpcRdmaServer server) {
        long held = 0;
        for (ServerConnection c : server.openConnections()) {
            BufferPool pool = c.chunkPool();
            held += pool.registrations() - pool.deregistrations();
        }
        return held;
    }

    /**
     * The server device's expected counts now: those with the survivors after their warm-up, with the MRs their
     * connections' pools gained or dropped since (read while the calls are paused); any MR beyond those is a leak of
     * the killed connection or of a call.
     */
    private Map<String, Integer> withServerPoolRegistrations(Map<String, Integer> withSurvivors, RpcRdmaServer server) {
        Map<String, Integer> expected = new TreeMap<>(withSurvivors);
        long delta = serverPoolRegistrationsHeld(server) - serverPoolMrsAtWarmUp;
        expected.put("mr", Math.toIntExact(expected.getOrDefault("mr", 0) + delta));
        return expected;
    }

    /** The device's counts without ctx (librdmacm keeps a device's context open once a process used it). */
    static Map<String, Integer> counts(String device) throws Exception {
        Map<String, Integer> counts = new TreeMap<>(RpcRdmaServerDeviceTests.resources(device));
        counts.remove("ctx");
        return counts;
    }

    /** Counts read twice 500 ms apart and equal: nothing in flight is still being released. */
    static Map<String, Integer> settledCounts(String device) throws Exception {
        Map<String, Integer> before = counts(device);
        for (int i = 0; i < 100; i++) {
            Thread.sleep(500);
            Map<String, Integer> now = counts(device);
            if (now.equals(before)) {
                return now;
            }
            before = now;
        }
        throw new AssertionError(device + " counts never settled: " + before);
    }

    /** Waits until the counts of {@code keys} (all if null) equal {@code expected}'s, or {@link #RECOVERY}. */
    static Map<String, Integer> awaitCounts(String device, Map<String, Integer> expected, Set<String> keys)
            throws Exception {
        long deadline = System.nanoTime() + RECOVERY.toNanos();
        Map<String, Integer> now = counts(device);
        while (!select(now, keys).equals(select(expected, keys)) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            now = counts(device);
        }
        return now;
    }

    private static Map<String, Integer> select(Map<String, Integer> counts, Set<String> keys) {
        if (keys == null) {
            return counts;
        }
        Map<String, Integer> some = new TreeMap<>(counts);
        some.keySet().retainAll(keys);
        return some;
    }

    /** Used heap after a full GC: the least of three, so that a GC that ran short does not count. */
    static long heapAfterGc() throws InterruptedException {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
            least = Math.min(
                    least,
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
        }
        return least;
    }
}
