package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
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
import java.util.concurrent.atomic.AtomicInteger;
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

    /** The identity system calls one switch makes from the server to {@code c} (or back), for a thread as root. */
    private static long switchCalls(Caller c, int[] serverGroups) throws PosixException {
        boolean groups = !Arrays.equals(c.groups(), serverGroups);
        boolean ids = c.uid() != 0 || c.gid() != 0;
        ThreadCredentials.Capabilities server = ThreadCredentials.capget();
        boolean rootRaises =
                (server.effective() | (server.permitted() & ThreadCredentials.NFSD_SET)) != server.effective();
        // setgroups; setfsgid, setfsuid and the two calls that check them; capset (after a change of ids the kernel
        // has moved the file capabilities itself, and root's effective set may lack some of the nfsd set)
        return (groups ? 1 : 0) + (ids ? 5 : (c.isRoot() && rootRaises ? 1 : 0));
    }

    @Test
    void thePreludeRunsAsTheServerAndTheCallTakesItsResultOnceByItsKey() throws Exception {
        threads = new CallerThreads(ServerIdentity.ofThisProcess(), 1, 8, "test-caller");
        AtomicInteger closed = new AtomicInteger();
        AutoCloseable resource = closed::incrementAndGet;
        Seen[] inPrelude = new Seen[1];
        List<Object> seen = threads.run(
                caller(1000, 1001, 3000),
                LONG,
                LONG,
                () -> {
                    inPrelude[0] = Seen.now();
                    return new CallerThreads.Prepared("file", resource);
                },
                () -> Arrays.asList(
                        Seen.now(),
                        CallerThreads.takePrepared("another file"),
                        CallerThreads.takePrepared("file"),
                        CallerThreads.takePrepared("file")),
                () -> {});
        assertEquals(0, inPrelude[0].fsuid(), "the prelude runs as the server");
        assertEquals(List.of(0), List.of(inPrelude[0].fsgid()));
        assertTrue(inPrelude[0].has(ThreadCredentials.CAP_DAC_READ_SEARCH));
        Seen body = (Seen) seen.get(0);
        assertEquals(1000, body.fsuid(), "the body runs as the caller");
        assertEquals(List.of(3000), body.groups());
        assertFalse(body.has(ThreadCredentials.CAP_DAC_READ_SEARCH));
        assertNull(seen.get(1), "another key takes nothing");
        assertSame(resource, seen.get(2));
        assertNull(seen.get(3), "taken once");
        assertEquals(0, closed.get(), "what the body took is the body's to close");

        // not taken: closed once the call is over; the next call on the thread finds nothing of it
        threads.run(
                caller(1000, 1000),
                LONG,
                LONG,
                () -> new CallerThreads.Prepared("file", resource),
                () -> CallerThreads.takePrepared("another file"),
                () -> {});
        assertEquals(1, closed.get());
        Object left = threads.run(caller(1000, 1000), LONG, LONG, () -> CallerThreads.takePrepared("file"), () -> {});
        assertNull(left);

        // a prelude that fails prepares nothing, and the call still runs, as its caller
        Seen after = threads.run(
                caller(2000, 2000),
                LONG,
                LONG,
                () -> {
                    throw new IOException("the handle did not resolve");
                },
                () -> {
                    assertNull(CallerThreads.takePrepared("file"));
                    return Seen.now();
                },
                () -> {});
        assertEquals(2000, after.fsuid());
        assertEquals(1, closed.get());
    }

    @Test
    void aCallSwitchesOnceEachWayWithOnlyTheSystemCallsThatChangeSomething() throws Exception {
        threads = new CallerThreads(ServerIdentity.ofThisProcess(), 1, 8, "test-caller");
        int[] serverGroups = ThreadCredentials.getgroups(); // this thread's are the process's: the server's
        threads.run(caller(1000, 1000), LONG, LONG, () -> 0, () -> {}); // the thread is up

        for (Caller c : List.of(
                caller(1000, 1001, 3000, 4000),
                caller(1000, 1000),
                caller(0, 0),
                caller(0, 0, serverGroups),
                caller(2000, 0, serverGroups))) {
            long before = ThreadCredentials.systemCalls();
            List<Seen> seen = threads.run(
                    c,
                    LONG,
                    LONG,
                    () -> new CallerThreads.Prepared("file", () -> {}),
                    () -> List.of(Seen.now(), CallerThreads.asServer(Seen::now)),
                    () -> {});
            long made = ThreadCredentials.systemCalls() - before;
            long switchWay = switchCalls(c, serverGroups);
            // the asServer inside costs two switches more; the prelude none
            assertEquals(4 * switchWay, made, c + ": identity system calls of a call with one asServer inside");
            assertEquals(c.uid(), seen.get(0).fsuid(), c + " took");
            assertEquals(c.gid(), seen.get(0).fsgid());
            assertEquals(Arrays.stream(c.groups()).boxed().toList(), seen.get(0).groups(), c + ": its groups exactly");
            assertEquals(0, seen.get(1).fsuid(), "the server's identity inside");

            before = ThreadCredentials.systemCalls();
            Seen plain =
                    threads.run(c, LONG, LONG, () -> new CallerThreads.Prepared("file", () -> {}), Seen::now, () -> {});
            made = ThreadCredentials.systemCalls() - before;
            assertEquals(2 * switchWay, made, c + ": identity system calls of a call that stays the caller");
            assertEquals(c.uid(), plain.fsuid());
        }
    }

    @Test
    void aSwitchThatFailsHalfwayIsUndoneWholeByTheNextOne() throws Exception {
        threads = new CallerThreads(ServerIdentity.ofThisProcess(), 1, 8, "test-caller");
        int[] tooMany = new int[ThreadCredentials.MAX_GROUPS + 1];
        Arrays.fill(tooMany, 5000);
        AtomicBoolean ran = new AtomicBoolean();
        Exception e = assertThrows(
                IllegalStateException.class,
                () -> threads.run(caller(1000, 1000, tooMany), LONG, LONG, () -> ran.getAndSet(true), () -> {}));
        assertTrue(e.getMessage().startsWith("acting as"), e.getMessage());
        assertFalse(ran.get(), "the call never ran as anyone else");

        Seen root = threads.run(caller(0, 0, ThreadCredentials.getgroups()), LONG, LONG, Seen::now, () -> {});
        assertEquals(0, root.fsuid());
        assertEquals(Arrays.stream(ThreadCredentials.getgroups()).boxed().toList(), root.groups());
        Seen user = threads.run(caller(1000, 1001, 7), LONG, LONG, Seen::now, () -> {});
        assertEquals(1000, user.fsuid());
        assertEquals(List.of(7), user.groups());
    }

    /**
     * A thread that acted as a caller wakes no other thread and starts none: a thread it started would hold its
     * credentials, which the RDMA device refuses (BadInputDeviceTest), and a virtual thread it woke could have its
     * carrier started by it. The waiter (a virtual thread, as the transport's) is woken, and an abandoned call's
     * release runs, on the waker; a caller thread that tries to end a call itself is refused.
     */
    @Test
    void callerThreadsWakeNoOneTheWakerDoes() throws Exception {
        threads = new CallerThreads(ServerIdentity.ofThisProcess(), 1, 8, "test-caller");
        java.util.concurrent.atomic.AtomicReference<Object> result =
                new java.util.concurrent.atomic.AtomicReference<>();
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                result.set(threads.run(
                        caller(1000, 1000),
                        LONG,
                        LONG,
                        () -> Thread.currentThread().getName(),
                        () -> {}));
            } catch (Exception e) {
                result.set(e);
            }
        });
        assertTrue(waiter.join(LONG));
        assertEquals("test-caller-1", result.get(), "it ran on a caller thread, and its waiter was woken");

        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch released = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<String> releasedOn =
                new java.util.concurrent.atomic.AtomicReference<>();
        CallerThreads.Busy busy = assertThrows(
                CallerThreads.Busy.class,
                () -> threads.run(
                        caller(1000, 1000),
                        LONG,
                        Duration.ofMillis(200),
                        () -> release.await(30, TimeUnit.SECONDS),
                        () -> {
                            releasedOn.set(Thread.currentThread().getName());
                            released.countDown();
                        }));
        assertTrue(busy.abandoned());
        release.countDown();
        assertTrue(released.await(20, TimeUnit.SECONDS));
        assertEquals("test-caller-waker", releasedOn.get(), "an abandoned call's release runs on the waker");

        CallerTask<Object> other = new CallerTask<>(caller(0, 0), null, () -> null, () -> {}, LONG, LONG);
        IllegalStateException refused = assertThrows(
                IllegalStateException.class,
                () -> threads.run(
                        caller(1000, 1000),
                        LONG,
                        LONG,
                        () -> {
                            other.finish(null, null);
                            return null;
                        },
                        () -> {}));
        assertTrue(refused.getMessage().contains("wakes no other thread"), refused.getMessage());
        assertEquals(7, (int) threads.run(caller(0, 0), LONG, LONG, () -> 7, () -> {}), "the thread serves on");
    }

    /** A thread that does not hold the server's ids (one started by a thread acting as a caller) is refused. */
    @Test
    void aThreadHoldingOtherIdsCannotPassForTheServer() throws Exception {
        ServerIdentity self = ServerIdentity.ofThisProcess();
        PosixException[] thrown = new PosixException[1];
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                new ThreadIdentity(new ServerIdentity(self.uid() + 4321, self.gid(), true));
            } catch (PosixException e) {
                thrown[0] = e;
            }
        });
        assertTrue(t.join(LONG));
        assertTrue(thrown[0] != null && thrown[0].getMessage().contains("not uid"), String.valueOf(thrown[0]));
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
