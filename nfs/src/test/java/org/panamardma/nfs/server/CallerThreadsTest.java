package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The threads procedures run on take their caller's credentials and give them back, as the kernel reports them in
 * {@code /proc/thread-self/status}; and every wait for them has a deadline. Run as root (the server's usual case).
 */
class CallerThreadsTest {
    private static final Duration LONG = Duration.ofSeconds(30);
    private CallerThreads threads;

    @AfterEach
    void stop() {
        if (threads != null) {
            threads.close();
        }
    }

    private static Caller caller(int uid, int gid, int... groups) {
        return new Caller(uid, gid, groups, "t", false, ExportOptions.DEFAULTS);
    }

    /** What the kernel says of the calling thread: the file-system ids, groups, effective capabilities, umask. */
    record Seen(int fsuid, int fsgid, List<Integer> groups, long effective, int umask) {
        static Seen now() throws IOException {
            int fsuid = -1;
            int fsgid = -1;
            List<Integer> groups = List.of();
            long eff = -1;
            int umask = -1;
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                String[] f = line.split("\\s+");
                switch (f[0]) {
                    case "Uid:" -> fsuid = Integer.parseUnsignedInt(f[4]);
                    case "Gid:" -> fsgid = Integer.parseUnsignedInt(f[4]);
                    case "Groups:" ->
                        groups = Arrays.stream(f)
                                .skip(1)
                                .map(Integer::parseUnsignedInt)
                                .toList();
                    case "CapEff:" -> eff = Long.parseUnsignedLong(f[1], 16);
                    case "Umask:" -> umask = Integer.parseInt(f[1], 8);
                    default -> {}
                }
            }
            return new Seen(fsuid, fsgid, groups, eff, umask);
        }

        boolean has(int capability) {
            return (effective & (1L << capability)) != 0;
        }
    }

    @Test
    void eachCallTakesItsCallersCredentialsAndGivesThemBack() throws Exception {
        threads = new CallerThreads(ServerIdentity.ofThisProcess(), 1, 8, "test-caller");
        Seen server = threads.run(caller(0, 0), LONG, LONG, () -> CallerThreads.asServer(Seen::now), () -> {});
        assertEquals(0, server.fsuid());
        assertEquals(0, server.umask(), "each thread has its own umask, 0");

        Seen user = threads.run(caller(1000, 1001, 3000, 4000), LONG, LONG, Seen::now, () -> {});
        assertEquals(1000, user.fsuid());
        assertEquals(1001, user.fsgid());
        assertEquals(List.of(3000, 4000), user.groups());
        for (int cap : new int[] {
            ThreadCredentials.CAP_FSETID,
            ThreadCredentials.CAP_DAC_OVERRIDE,
            ThreadCredentials.CAP_DAC_READ_SEARCH,
            ThreadCredentials.CAP_FOWNER,
            ThreadCredentials.CAP_CHOWN,
            ThreadCredentials.CAP_MKNOD,
            ThreadCredentials.CAP_SYS_RESOURCE
        }) {
            assertFalse(user.has(cap), "capability " + cap + " dropped");
        }

        // the next call on the same thread: none of the last one's groups, its own ids
        Seen next = threads.run(caller(2000, 2000), LONG, LONG, Seen::now, () -> {});
        assertEquals(2000, next.fsuid());
        assertEquals(List.of(), next.groups());

        Seen root = threads.run(caller(0, 0), LONG, LONG, Seen::now, () -> {});
        assertEquals(0, root.fsuid());
        assertTrue(
                root.has(ThreadCredentials.CAP_FSETID) && root.has(ThreadCredentials.CAP_DAC_OVERRIDE),
                "root (not squashed) acts with root's file capabilities");

        // the server's identity inside a call, and the caller's again after it
        List<Seen> inside = threads.run(
                caller(1000, 1000, 7),
                LONG,
                LONG,
                () -> List.of(CallerThreads.asServer(Seen::now), Seen.now()),
                () -> {});
        assertEquals(0, inside.get(0).fsuid());
        assertTrue(inside.get(0).has(ThreadCredentials.CAP_DAC_READ_SEARCH));
        assertEquals(1000, inside.get(1).fsuid());
        assertEquals(List.of(7), inside.get(1).groups());

        // this (JUnit's) thread and the process were never touched
        Seen here = Seen.now();
        assertEquals(0, here.fsuid());
        assertFalse(here.groups().contains(3000));
    }

    @Test
    void credentialsAreRefusedOnAVirtualThread() throws Exception {
        Thread t = Thread.ofVirtual().unstarted(() -> ThreadCredentials.setfsuid(1000));
        Throwable[] thrown = new Throwable[1];
        t.setUncaughtExceptionHandler((th, e) -> thrown[0] = e);
        t.start();
        assertTrue(t.join(Duration.ofSeconds(10)));
        assertTrue(thrown[0] instanceof IllegalStateException, String.valueOf(thrown[0]));
    }

    @Test
    void everyWaitHasADeadline() throws Exception {
        threads = new CallerThreads(ServerIdentity.ofThisProcess(), 1, 1, "test-caller");
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean abandonedRanAfter = new AtomicBoolean();
        AtomicBoolean opOver = new AtomicBoolean();
        java.util.concurrent.atomic.AtomicReference<Throwable> failed =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread.UncaughtExceptionHandler keep = (t, e) -> failed.set(e);
        Thread first = Thread.ofVirtual().uncaughtExceptionHandler(keep).start(() -> {
            CallerThreads.Busy busy = assertThrows(
                    CallerThreads.Busy.class,
                    () -> threads.run(
                            caller(1, 1),
                            LONG,
                            Duration.ofMillis(300),
                            () -> {
                                release.await(30, TimeUnit.SECONDS);
                                opOver.set(true);
                                return null;
                            },
                            () -> abandonedRanAfter.set(opOver.get())));
            assertTrue(busy.abandoned(), "it was running: its thread releases what it holds when it ends");
        });
        assertTrue(first.join(Duration.ofSeconds(20)), "a running call is given up at its limit");
        assertEquals(null, failed.get());
        // the only thread is still busy with it: the next call waits for a thread at most its wait
        Thread second = Thread.ofVirtual().uncaughtExceptionHandler(keep).start(() -> {
            CallerThreads.Busy busy = assertThrows(
                    CallerThreads.Busy.class,
                    () -> threads.run(caller(1, 1), Duration.ofMillis(200), LONG, () -> null, () -> {}));
            assertFalse(busy.abandoned(), "it never ran");
        });
        assertTrue(second.join(Duration.ofSeconds(20)));
        assertEquals(null, failed.get());
        release.countDown();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!abandonedRanAfter.get() && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertTrue(abandonedRanAfter.get(), "the abandoned call's resources are released after it is over");
        assertEquals(42, (int) threads.run(caller(1, 1), LONG, LONG, () -> 42, () -> {}), "the thread serves on");
    }

    /**
     * The server frees its data buffers only once no procedure runs (one inside a system call on a pooled buffer
     * keeps the pool's arena acquired: on the branch before this, NfsServer.close() then threw "Session is acquired"
     * in NfsServerDeadlinesTest under load); the wait has a deadline, and no queued call starts after close.
     */
    @Test
    void closeWaitsForTheRunningProcedureWithinADeadline() throws Exception {
        threads = new CallerThreads(ServerIdentity.ofThisProcess(), 1, 4, "test-caller");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean queuedRan = new AtomicBoolean();
        Thread running = Thread.ofVirtual().start(() -> {
            try {
                threads.run(
                        caller(1, 1),
                        LONG,
                        LONG,
                        () -> {
                            started.countDown();
                            return release.await(30, TimeUnit.SECONDS);
                        },
                        () -> {});
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        assertTrue(started.await(20, TimeUnit.SECONDS));
        Thread queued = Thread.ofVirtual()
                .start(() -> assertThrows(
                        CallerThreads.Busy.class,
                        () -> threads.run(caller(1, 1), LONG, LONG, () -> queuedRan.getAndSet(true), () -> {})));
        Thread.sleep(100); // let it queue behind the running one
        threads.close();
        assertFalse(threads.awaitIdle(Duration.ofMillis(200)), "a procedure still runs: its buffers are in use");
        release.countDown();
        assertTrue(threads.awaitIdle(Duration.ofSeconds(20)), "idle once it is over");
        assertTrue(running.join(Duration.ofSeconds(20)) && queued.join(Duration.ofSeconds(20)));
        assertFalse(queuedRan.get(), "a call still queued at close never runs");
    }
}
