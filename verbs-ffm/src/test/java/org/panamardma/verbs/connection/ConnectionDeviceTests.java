package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testing.Placement;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.TestAccess;

/**
 * The connection layer's behaviour on any device: subclassed per transport. The server listens on the peer device's
 * address (fresh port per test), the client connects to it from the test device, both in this JVM.
 */
abstract class ConnectionDeviceTests {
    static final long WAIT_SECONDS = 60;
    /** The first address resolution in a fresh testbed VM has been seen to take over 30 s (TCG). */
    static final ConnectionOptions OPTIONS = ConnectionOptions.DEFAULTS.withTimeout(Duration.ofSeconds(90));

    /** How many connections the concurrency test opens at once: 64, unless the transport's subclass says less. */
    int concurrentConnections() {
        return 64;
    }

    private static int port(RdmaConnection c) {
        return c.localAddress().orElseThrow().getPort();
    }

    static void lap(String what, long startNanos) {
        System.out.printf("%s after %d ms%n", what, (System.nanoTime() - startNanos) / 1_000_000);
    }

    private static final AtomicInteger PORTS = new AtomicInteger(20_000 + new Random().nextInt(20_000));

    static InetSocketAddress serverAddress(RdmaTestDevice device) {
        RdmaTestDevice peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer device"));
        InetAddress ip = peer.ipv4().orElseThrow(() -> new AssertionError(peer + " has no IPv4 address"));
        return new InetSocketAddress(ip, PORTS.getAndIncrement());
    }

    /** The kernel's last messages, for a failure's report (the tests run as root in the testbed VM). */
    static String kernelLogTail() {
        try {
            Process p = new ProcessBuilder(
                            "sh",
                            "-c",
                            "dmesg | tail -n 20; rdma resource show; ulimit -a; ls /proc/$PPID/fd | wc -l; free -m")
                    .redirectErrorStream(true)
                    .start();
            return "kernel log:\n" + new String(p.getInputStream().readAllBytes());
        } catch (java.io.IOException e) {
            return "(no kernel log: " + e + ")";
        }
    }

    static byte[] pattern(int length, long seed) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    static <T> T await(CompletableFuture<T> f) throws Exception {
        return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    /** The exception the future failed with (unwrapped). */
    static Throwable failure(CompletableFuture<?> f) throws Exception {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT_SECONDS, TimeUnit.SECONDS));
        return e.getCause();
    }

    /** A server, one client connected to it and the server's side of that connection. */
    static final class Pair implements AutoCloseable {
        final RdmaServer server;
        final RdmaConnection client;
        final RdmaConnection serverSide;

        Pair(RdmaTestDevice device, ConnectionOptions options) throws Exception {
            long t0 = System.nanoTime();
            ListenedPair pair =
                    ListenedPair.open(serverAddress(device), options, options, Duration.ofSeconds(WAIT_SECONDS));
            System.out.printf("pair connected in %d ms%n", (System.nanoTime() - t0) / 1_000_000);
            server = pair.server();
            client = pair.client();
            serverSide = pair.served();
        }

        Pair(RdmaTestDevice device) throws Exception {
            this(device, OPTIONS);
        }

        @Override
        public void close() {
            long t0 = System.nanoTime();
            try {
                client.close();
            } finally {
                long t1 = System.nanoTime();
                server.close();
                System.out.printf(
                        "pair closed: client %d ms, server %d ms%n",
                        (t1 - t0) / 1_000_000, (System.nanoTime() - t1) / 1_000_000);
            }
        }
    }

    static MemoryRegion region(RdmaConnection c, byte[] contents) throws Exception {
        MemoryRegion mr = c.protectionDomain().allocate(Math.max(contents.length, 8), TestAccess.ALL_REMOTE);
        MemorySegment.copy(contents, 0, mr.segment(), ValueLayout.JAVA_BYTE, 0, contents.length);
        return mr;
    }

    static byte[] bytes(MemoryRegion mr, long offset, int length) {
        return mr.segment().asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void privateDataReachesBothSides(RdmaTestDevice device) throws Exception {
        byte[] fromClient = {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 1, 0, 3, 3};
        byte[] fromServer = {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 1, 0, 7, 7};
        InetSocketAddress address = serverAddress(device);
        try (RdmaServer server = RdmaServer.listen(
                        address, OPTIONS.withParameters(OPTIONS.parameters().withPrivateData(fromServer)));
                RdmaConnection client = RdmaClient.connect(
                        address, OPTIONS.withParameters(OPTIONS.parameters().withPrivateData(fromClient)))) {
            RdmaConnection accepted = server.accept(Duration.ofSeconds(WAIT_SECONDS));
            assertNotNull(accepted);
            // IB CM pads private data to its field size: compare the bytes sent
            assertArrayEquals(fromClient, java.util.Arrays.copyOf(accepted.peerPrivateData(), fromClient.length));
            assertArrayEquals(fromServer, java.util.Arrays.copyOf(client.peerPrivateData(), fromServer.length));
        }
    }

    @Test
    void sendReceiveRoundTripChecksBytesOnTheFarSide(RdmaTestDevice device) throws Exception {
        try (Pair p = new Pair(device)) {
            assertEquals(device.name(), p.client.deviceName());
            assertEquals(device.peerName().orElseThrow(), p.serverSide.deviceName());
            assertTrue(p.client.name().startsWith("rdma-connection-"), p.client.name());
            byte[] request = pattern(3000, 1);
            byte[] reply = pattern(p.serverSide.receiveBufferSize(), 2);
            MemoryRegion out = region(p.client, request);
            MemoryRegion back = region(p.serverSide, reply);
            CompletableFuture<Received> atServer = p.serverSide.receive();
            await(p.client.send(out, 0, request.length));
            Received r = await(atServer);
            assertArrayEquals(request, r.data(), "bytes at the server");
            assertEquals(request.length, r.length());
            assertFalse(r.hasImmediate());
            // more than the receive buffers, both ways in turn: buffers are re-posted
            for (int i = 0; i < 2 * ConnectionOptions.DEFAULTS.receiveQueueDepth(); i++) {
                CompletableFuture<Received> atClient = p.client.receive();
                await(p.serverSide.send(back, 0, reply.length - i));
                Received got = await(atClient);
                assertEquals(reply.length - i, got.length());
                assertArrayEquals(java.util.Arrays.copyOf(reply, reply.length - i), got.data(), "reply " + i);
            }
        }
    }

    /**
     * Receive buffers posted again in batches (ConnectionOptions.receiveBatch, QueuePair.postReceives): 8 buffers,
     * batches of 4, so at most 3 wait to be posted; the client keeps 5 messages unanswered at a time, 40 rounds. Every
     * message arrives whole and in order: batches put every buffer back.
     */
    @Test
    void receivesPostedAgainInBatchesPutEveryBufferBack(RdmaTestDevice device) throws Exception {
        ConnectionOptions options = OPTIONS.withQueueDepths(8, 8).withReceiveBatch(4);
        try (Pair p = new Pair(device, options)) {
            int inFlight = 8 - (4 - 1);
            MemoryRegion out = p.client.protectionDomain().allocate(256L * inFlight, TestAccess.ALL_REMOTE);
            for (int round = 0; round < 40; round++) {
                List<CompletableFuture<Received>> arriving = new ArrayList<>();
                List<CompletableFuture<Void>> sent = new ArrayList<>();
                for (int i = 0; i < inFlight; i++) {
                    byte[] message = pattern(100 + i, round * inFlight + i);
                    MemorySegment.copy(message, 0, out.segment(), ValueLayout.JAVA_BYTE, 256L * i, message.length);
                    arriving.add(p.serverSide.receive());
                    sent.add(p.client.send(out, 256L * i, message.length));
                }
                for (int i = 0; i < inFlight; i++) {
                    await(sent.get(i));
                    assertArrayEquals(
                            pattern(100 + i, round * inFlight + i),
                            await(arriving.get(i)).data(),
                            "round " + round + ", message " + i);
                }
            }
        }
    }

    /**
     * Selective signaling (ConnectionOptions.sendSignalInterval 4, 8 send slots): 3 threads send 400 messages in
     * all, blocking for slots as the queue fills (the SEND taking the last slot is signaled, so every wait ends); a
     * signaled request after them completes the futures of the unsignaled SENDs before it; a lone unsignaled SEND's
     * future waits for the next request, then completes with it. Every message arrives whole.
     *
     * <p>The peer keeps a receive posted for every message (512 receive buffers): a signaled SEND completes once
     * the data has left (on siw once TCP has it), not once the peer has re-posted its receive, so a sender paced by
     * its slots alone overruns a short receive queue; iWARP has no RNR retry, and such a SEND ends the connection
     * (seen on siw with 16 receives: IBV_WC_LOC_QP_OP_ERR, or the peer's TERMINATE). Only the sender's slots pace
     * this test, as intended.
     */
    @Test
    void unsignaledSendsCompleteWithTheNextSignaledRequestAndNoWaitForASlotHangs(RdmaTestDevice device)
            throws Exception {
        ConnectionOptions options = OPTIONS.withQueueDepths(8, 512).withSendSignalInterval(4);
        try (Pair p = new Pair(device, options)) {
            int threads = 3;
            int each = 133;
            MemoryRegion out = p.client.protectionDomain().allocate(64L * threads, TestAccess.ALL_REMOTE);
            for (int t = 0; t < threads; t++) {
                out.segment().asSlice(64L * t, 64).fill((byte) (t + 1));
            }
            List<CompletableFuture<Received>> arriving = new ArrayList<>();
            for (int i = 0; i < threads * each; i++) {
                arriving.add(p.serverSide.receive());
            }
            List<CompletableFuture<Void>> sent = java.util.Collections.synchronizedList(new ArrayList<>());
            List<Thread> senders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                senders.add(Thread.ofPlatform().start(() -> {
                    for (int i = 0; i < each; i++) {
                        sent.add(p.client.send(out, 64L * thread, 64));
                    }
                }));
            }
            for (Thread t : senders) {
                t.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
                assertFalse(t.isAlive(), "a sender waiting for a slot was never woken");
            }
            MemoryRegion target = region(p.serverSide, new byte[64]);
            await(p.client.write(out, 0, 8, target.remote())); // signaled: completes every SEND before it
            for (CompletableFuture<Void> f : sent) {
                await(f);
            }
            int[] perThread = new int[threads];
            for (CompletableFuture<Received> a : arriving) {
                byte[] data = await(a).data();
                assertEquals(64, data.length);
                perThread[data[0] - 1]++;
                assertEquals(-1, java.util.Arrays.mismatch(data, pattern64(data[0])), "a message torn");
            }
            assertArrayEquals(new int[] {each, each, each}, perThread);

            CompletableFuture<Received> lone = p.serverSide.receive();
            CompletableFuture<Void> unsignaled = p.client.send(out, 0, 64);
            assertArrayEquals(pattern64((byte) 1), await(lone).data(), "the peer has it");
            Thread.sleep(200);
            assertFalse(unsignaled.isDone(), "an unsignaled SEND makes no completion of its own");
            await(p.client.write(out, 0, 8, target.remote()));
            assertTrue(
                    unsignaled.isDone() && !unsignaled.isCompletedExceptionally(),
                    "done when the next signaled request completed");
        }
    }

    /**
     * Busy polling (ConnectionOptions.busyPoll): 100 echoed SENDs, once with the default poller and once with a
     * busy-poll time of a second. The default poller sleeps on the completion channel while each reply is on its
     * way (at least once per round trip, less a margin); the busy one keeps polling between completions and sleeps
     * at most a few times (only if a round trip took a second, as it may on a loaded emulated host). Every echo
     * carries its own round's number.
     */
    @Test
    void busyPollingKeepsThePollerFromSleepingWhileTrafficFlows(RdmaTestDevice device) throws Exception {
        int rounds = 100;
        long[] sleeps = new long[2];
        for (int mode = 0; mode < 2; mode++) {
            ConnectionOptions options = mode == 0 ? OPTIONS : OPTIONS.withBusyPoll(Duration.ofSeconds(1));
            try (Pair p = new Pair(device, options)) {
                MemoryRegion out = region(p.client, new byte[64]);
                MemoryRegion back = region(p.serverSide, new byte[64]);
                long before = 0;
                for (int i = -1; i < rounds; i++) { // round -1 warms up
                    if (i == 0) {
                        before = p.client.pollerSleeps();
                    }
                    CompletableFuture<Received> atServer = p.serverSide.receive();
                    CompletableFuture<Received> atClient = p.client.receive();
                    out.segment().set(ValueLayout.JAVA_INT_UNALIGNED, 0, i);
                    await(p.client.send(out, 0, 64));
                    byte[] got = await(atServer).data();
                    MemorySegment.copy(got, 0, back.segment(), ValueLayout.JAVA_BYTE, 0, got.length);
                    await(p.serverSide.send(back, 0, got.length));
                    MemorySegment echo = MemorySegment.ofArray(await(atClient).data());
                    assertEquals(i, echo.get(ValueLayout.JAVA_INT_UNALIGNED, 0), "the echo of round " + i);
                }
                sleeps[mode] = p.client.pollerSleeps() - before;
            }
        }
        System.out.printf(
                "%s: client poller sleeps in %d round trips: %d without busy polling, %d with 1 s%n",
                device.name(), rounds, sleeps[0], sleeps[1]);
        assertTrue(sleeps[0] >= rounds / 2, "the default poller sleeps while replies travel: " + sleeps[0]);
        assertTrue(sleeps[1] <= 5, "the busy poller keeps polling between completions: " + sleeps[1]);
    }

    /**
     * An idle connection costs no wake-ups (issue 26): for 3 s without traffic neither side's poller nor the server's
     * event loop may wake more than a few times (their backstop, {@value CompletionPoller#IDLE_WAIT_MILLIS} ms); in
     * 50 ms slices they woke about 60 times each. The hostile half: a poller asleep that long still answers at once when
     * something comes (a SEND after the rest arrives with its bytes), and the client still learns of the server's
     * close from its CM event channel (its {@code disconnected()} completes, its next request fails).
     */
    @Test
    void anIdleConnectionsPollersSleepUntilSomethingComes(RdmaTestDevice device) throws Exception {
        try (Pair p = new Pair(device, OPTIONS)) {
            MemoryRegion out = region(p.client, pattern(64, 7));
            CompletableFuture<Received> warm = p.serverSide.receive();
            await(p.client.send(out, 0, 64));
            await(warm);
            TimeUnit.MILLISECONDS.sleep(200); // the last completions' re-arming done

            long clientBefore = p.client.pollerSleeps();
            long serverBefore = p.serverSide.pollerSleeps();
            long listenerBefore = p.server.eventLoopSleeps();
            TimeUnit.SECONDS.sleep(3);
            long clientWakes = p.client.pollerSleeps() - clientBefore;
            long serverWakes = p.serverSide.pollerSleeps() - serverBefore;
            long listenerWakes = p.server.eventLoopSleeps() - listenerBefore;
            System.out.printf(
                    "%s: sleeps in 3 idle seconds: client poller %d, server side poller %d, server's event loop %d%n",
                    device.name(), clientWakes, serverWakes, listenerWakes);
            assertTrue(clientWakes <= 5, "the idle client's poller woke " + clientWakes + " times in 3 s");
            assertTrue(serverWakes <= 5, "the idle server side's poller woke " + serverWakes + " times in 3 s");
            assertTrue(listenerWakes <= 5, "the idle server's event loop woke " + listenerWakes + " times in 3 s");

            CompletableFuture<Received> atServer = p.serverSide.receive();
            await(p.client.send(out, 0, 64));
            assertArrayEquals(pattern(64, 7), await(atServer).data(), "the SEND after the rest, at the server");

            p.serverSide.close();
            assertNotNull(p.client.disconnected().get(WAIT_SECONDS, TimeUnit.SECONDS), "the server's close, seen");
            assertInstanceOf(
                    ConnectionClosedException.class,
                    failure(p.client.send(out, 0, 64)),
                    "a request after the peer's close");
        }
    }

    /**
     * The peer's close loses nothing that completed before it. The server's side learns of the client's DISCONNECTED
     * on the server's event thread while its poller is still to drain the CQ (here held on purpose, in a callback,
     * until the event has been taken): the message that had arrived must still reach its receive, and the SEND the
     * client had received must complete, not both fail as "disconnected by the peer" (they did, before the poller
     * drained the CQ ahead of failing what was pending). What comes after the end fails.
     */
    @Test
    void whatCompletedBeforeThePeerClosedIsReportedDoneNotDisconnected(RdmaTestDevice device) throws Exception {
        try (Pair p = new Pair(device)) {
            byte[] first = pattern(100, 11);
            byte[] second = pattern(200, 12);
            byte[] toClient = pattern(300, 13);
            java.util.concurrent.CountDownLatch pollerHeld = new java.util.concurrent.CountDownLatch(1);
            CompletableFuture<Received> firstAtServer = p.serverSide.receive();
            // registered before the message can arrive: runs on the server side's poller thread
            CompletableFuture<Void> held = firstAtServer.thenRun(() -> {
                pollerHeld.countDown();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
                try {
                    while (!p.serverSide.isFailed() && System.nanoTime() - deadline < 0) {
                        TimeUnit.MILLISECONDS.sleep(5);
                    }
                    TimeUnit.MILLISECONDS.sleep(300); // the event thread's handling of DISCONNECTED, all of it
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            CompletableFuture<Received> secondAtServer = p.serverSide.receive();
            CompletableFuture<Received> atClient = p.client.receive();
            await(p.client.send(region(p.client, first), 0, first.length));
            assertTrue(pollerHeld.await(WAIT_SECONDS, TimeUnit.SECONDS), "the server side's poller is held");

            await(p.client.send(region(p.client, second), 0, second.length)); // in the server's CQ, not yet drained
            CompletableFuture<Void> sentToClient =
                    p.serverSide.send(region(p.serverSide, toClient), 0, toClient.length);
            // The client's receive of the SEND does not say that the SEND's completion waits in the server's CQ: rxe
            // completes a receive before its responder sends the ACK (rxe_resp.c: COMPLETE, then ACKNOWLEDGE), and a
            // client closing in between left the SEND unacknowledged, flushed by the server's DISCONNECTED (seen in
            // CI, 2026-11-28). A READ behind it does: its response acknowledges every request before it (IBA's RC
            // implied ACK; rxe_comp.c completes the SEND before it copies the READ's bytes; siw completes a SEND once
            // it was sent), so once the client's bytes are in the server's memory, the SEND's completion is in the CQ.
            byte[] readable = pattern(64, 14);
            MemoryRegion readInto = region(p.serverSide, new byte[readable.length]);
            CompletableFuture<Void> readBehind = p.serverSide.read(
                    readInto, 0, readable.length, region(p.client, readable).remote());
            assertArrayEquals(toClient, await(atClient).data(), "the server's SEND, at the client");
            Placement.assertPlaced(readable, readInto.segment(), "the READ behind the SEND, answered");
            p.client.close();

            await(held);
            assertTrue(p.serverSide.isFailed(), "the server side took the client's DISCONNECTED");
            assertArrayEquals(
                    second, await(secondAtServer).data(), "the message that arrived before the client closed");
            await(sentToClient); // the client had it: done, not failed as disconnected
            try {
                await(readBehind); // its own completion may or may not have preceded the close
            } catch (ExecutionException e) {
                assertInstanceOf(ConnectionClosedException.class, e.getCause(), "the READ behind, if not done");
            }
            assertNotNull(p.serverSide.disconnected().get(WAIT_SECONDS, TimeUnit.SECONDS));
            assertInstanceOf(
                    ConnectionClosedException.class,
                    failure(p.serverSide.receive()),
                    "a receive after the peer's close");
            assertInstanceOf(
                    ConnectionClosedException.class,
                    failure(p.serverSide.send(region(p.serverSide, toClient), 0, 8)),
                    "a SEND after the peer's close");
        }
    }

    private static byte[] pattern64(byte b) {
        byte[] a = new byte[64];
        java.util.Arrays.fill(a, b);
        return a;
    }

    @Test
    void writeThenReadThroughFutures(RdmaTestDevice device) throws Exception {
        try (Pair p = new Pair(device)) {
            byte[] data = pattern(8192, 3);
            MemoryRegion local = region(p.client, data);
            MemoryRegion target = region(p.serverSide, new byte[16384]);
            await(p.client.write(local, 0, data.length, target.remote()));
            MemoryRegion readBack = region(p.client, new byte[data.length]);
            await(p.client.read(readBack, 0, data.length, target.remote()));
            assertArrayEquals(data, bytes(readBack, 0, data.length), "read back");
            // the READ behind the WRITE was answered after the WRITE was placed (RFC 5040 section 5.5; IBA's RC
            // ordering): no wait here, where the WRITE's completion alone promises nothing on iWARP (Placement)
            assertArrayEquals(data, bytes(target, 0, data.length), "written at the server");
        }
    }

    /**
     * What a WRITE's completion says depends on the transport; what orders its placement does not. The client's packets
     * are held 400 ms before they leave ({@link ImpairedLink}). On RoCE the WRITE completes with the responder's ACK,
     * sent once the bytes were placed: not sooner than the hold, and the target has them then. On iWARP it completes
     * once TCP took the bytes (RFC 5040 section 5.5 promises the Data Source no more; siw_qp_tx.c), before they can
     * have arrived: the target is still empty when the writer sees the completion. On both, an RDMA READ posted behind
     * the WRITE is answered only after the WRITE before it was placed (RFC 5040 section 5.5; IBA's RC ordering), so the
     * bytes are there when the READ completes, with no wait. This is why a test or a program that looks at the peer's
     * memory after a WRITE needs a READ, a SEND or a wait behind it (Placement).
     */
    @Test
    void aReadBehindAWriteOrdersItsPlacementWhereTheWritesCompletionSaysLess(RdmaTestDevice device) throws Exception {
        int holdMillis = 400; // below rxe's retransmission timer (rdma_cm on RoCE: 4.096 us << 17, 0.54 s)
        try (Pair p = new Pair(device);
                ImpairedLink _ = ImpairedLink.on(device.netdev(), holdMillis, 0)) {
            byte[] data = pattern(4096, 31);
            MemoryRegion local = region(p.client, data);
            MemoryRegion target = region(p.serverSide, new byte[data.length]);
            long posted = System.nanoTime();
            await(p.client.write(local, 0, data.length, target.remote()));
            long completedMillis = (System.nanoTime() - posted) / 1_000_000;
            byte[] atCompletion = bytes(target, 0, data.length);
            // measured after the look: below the hold, the WRITE's packets cannot have reached the server at the look
            long lookedMillis = (System.nanoTime() - posted) / 1_000_000;
            System.out.printf(
                    "%s: the WRITE completed after %d ms with the client's packets held %d ms; the target %s then%n",
                    device.name(),
                    completedMillis,
                    holdMillis,
                    java.util.Arrays.equals(atCompletion, data) ? "had the bytes" : "did not have the bytes");
            if (device.transport() == org.panamardma.testbed.Transport.IWARP) {
                if (lookedMillis < holdMillis) {
                    assertArrayEquals(
                            new byte[data.length], atCompletion, "nothing placed yet when the WRITE completed");
                } else {
                    System.out.printf(
                            "%s: the look came %d ms after the post, past the hold: the host was too slow to show "
                                    + "the WRITE completed before its bytes arrived%n",
                            device.name(), lookedMillis);
                }
            } else {
                assertTrue(
                        completedMillis >= holdMillis,
                        "a RoCE WRITE completes with the responder's ACK, not in " + completedMillis + " ms");
                assertArrayEquals(data, atCompletion, "placed when the RoCE WRITE completed");
            }
            MemoryRegion scratch = region(p.client, new byte[1]);
            await(p.client.read(scratch, 0, 1, target.remote()));
            assertArrayEquals(data, bytes(target, 0, data.length), "placed when the READ behind the WRITE completed");
        }
    }

    /**
     * The README's old mistake (64 bytes written into an 8-byte counter, IBV_WC_REM_ACCESS_ERR at the peer, the
     * connection lost): with a {@code RemoteRegion} the length is checked here, before anything is posted, and the
     * connection goes on; what fits is written.
     */
    @Test
    void aWriteOrReadLongerThanTheRemoteRegionIsRefusedBeforePosting(RdmaTestDevice device) throws Exception {
        try (Pair p = new Pair(device)) {
            byte[] data = pattern(64, 5);
            MemoryRegion local = region(p.client, data);
            MemoryRegion word = region(p.serverSide, new byte[8]);
            IndexOutOfBoundsException e =
                    assertThrows(IndexOutOfBoundsException.class, () -> p.client.write(local, 0, 64, word.remote()));
            assertTrue(e.getMessage().contains("8 bytes"), e.getMessage());
            assertThrows(IndexOutOfBoundsException.class, () -> p.client.read(local, 0, 64, word.remote()));
            await(p.client.write(local, 0, 8, word.remote()));
            Placement.assertPlaced(java.util.Arrays.copyOf(data, 8), word.segment(), "the 8 bytes that fit arrived");
            assertFalse(p.client.isFailed());
        }
    }

    @Test
    void manyConcurrentConnectionsToOneServerEachMoveTheirOwnData(RdmaTestDevice device) throws Exception {
        InetSocketAddress address = serverAddress(device);
        ConnectionOptions options = OPTIONS.withQueueDepths(8, 4).withReceiveBufferSize(1024);
        List<RdmaConnection> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<RdmaConnection> clients = new java.util.concurrent.CopyOnWriteArrayList<>();
        final int N = concurrentConnections();
        try (RdmaServer server = RdmaServer.listen(address, options, accepted::add)) {
            try {
                // connected from 8 threads at once: rdma_cm, the server's event loop and the accepts run concurrently
                long t0 = System.nanoTime();
                var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
                try {
                    List<java.util.concurrent.Future<RdmaConnection>> connecting = new ArrayList<>();
                    for (int i = 0; i < N; i++) {
                        connecting.add(pool.submit(() -> RdmaClient.connect(address, options)));
                    }
                    for (var f : connecting) {
                        try {
                            clients.add(f.get(WAIT_SECONDS, TimeUnit.SECONDS));
                        } catch (ExecutionException e) {
                            System.out.println("connection " + clients.size() + " of " + N + " failed: " + e.getCause()
                                    + "\n" + kernelLogTail());
                            throw e;
                        }
                    }
                } finally {
                    pool.shutdownNow();
                }
                lap(N + " clients connected", t0);
                // each client's server side, found by the client's port: on iWARP a client whose attempt timed out
                // waiting for the MPA reply connects again (RdmaClient), and the server may still have taken the
                // abandoned attempt, which its peer then closes; it belongs to no client and must not count
                Map<Integer, RdmaConnection> serverSides = new HashMap<>();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
                while (System.nanoTime() < deadline) {
                    serverSides.clear();
                    for (RdmaConnection s : accepted) {
                        serverSides.putIfAbsent(s.peerAddress().orElseThrow().getPort(), s);
                    }
                    if (clients.stream().allMatch(c -> serverSides.containsKey(port(c)))) {
                        break;
                    }
                    Thread.sleep(20);
                }
                for (RdmaConnection c : clients) {
                    assertNotNull(serverSides.get(port(c)), "the server side of the client on port " + port(c));
                }
                assertTrue(accepted.size() >= N, "connections accepted: " + accepted.size());
                // each server side learns its peer from the message: client i sends (i, pattern i)
                List<CompletableFuture<Received>> receives = new ArrayList<>();
                for (RdmaConnection c : clients) {
                    receives.add(serverSides.get(port(c)).receive());
                }
                List<CompletableFuture<Void>> sends = new ArrayList<>();
                for (int i = 0; i < N; i++) {
                    byte[] msg = pattern(100 + i, 100 + i);
                    msg[0] = (byte) i;
                    sends.add(clients.get(i).send(region(clients.get(i), msg), 0, msg.length));
                }
                await(CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)));
                for (int i = 0; i < N; i++) {
                    byte[] got = await(receives.get(i)).data();
                    byte[] expected = pattern(100 + i, 100 + i);
                    expected[0] = (byte) i;
                    assertArrayEquals(expected, got, "message of client " + i + " on its own server side");
                }
                // and a WRITE per connection into the server side's memory
                for (int i = 0; i < N; i++) {
                    RdmaConnection client = clients.get(i);
                    RdmaConnection serverSide = serverSides.get(port(client));
                    MemoryRegion target = region(serverSide, new byte[512]);
                    byte[] data = pattern(512, 200 + i);
                    await(client.write(region(client, data), 0, data.length, target.remote()));
                    Placement.assertPlaced(data, target.segment(), "written by client " + i);
                }
                // an abandoned attempt the server took is closed by then: the server holds the clients' and no more
                deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
                while (server.connectionCount() > N && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertEquals(N, server.connectionCount());
                lap("all moved their data", t0);
            } finally {
                for (RdmaConnection c : clients) {
                    c.close();
                }
            }
        }
    }

    @Test
    void closingTheClientFailsThePendingReceiveOnTheServerWhichKeepsServing(RdmaTestDevice device) throws Exception {
        InetSocketAddress address = serverAddress(device);
        try (RdmaServer server = RdmaServer.listen(address, OPTIONS)) {
            long t0 = System.nanoTime();
            RdmaConnection first = RdmaClient.connect(address, OPTIONS);
            lap("first connect", t0);
            RdmaConnection firstAtServer = server.accept(Duration.ofSeconds(WAIT_SECONDS));
            assertNotNull(firstAtServer);
            CompletableFuture<Received> pending = firstAtServer.receive();
            t0 = System.nanoTime();
            first.close();
            lap("first client close", t0);
            Throwable t = failure(pending);
            lap("pending receive failed", t0);
            assertInstanceOf(ConnectionClosedException.class, t, "pending receive: " + t);
            System.out.println("server's pending receive failed with: " + t);
            assertTrue(firstAtServer.isFailed());
            Throwable later = failure(firstAtServer.receive());
            assertInstanceOf(ConnectionClosedException.class, later);
            // the first client's futures after close fail too
            assertInstanceOf(ConnectionClosedException.class, failure(first.receive()));
            firstAtServer.close();
            lap("server side closed", t0);

            try (RdmaConnection second = RdmaClient.connect(address, OPTIONS)) {
                RdmaConnection secondAtServer = server.accept(Duration.ofSeconds(WAIT_SECONDS));
                assertNotNull(secondAtServer, "the server accepts another connection");
                byte[] msg = pattern(777, 7);
                CompletableFuture<Received> r = secondAtServer.receive();
                await(second.send(region(second, msg), 0, msg.length));
                assertArrayEquals(msg, await(r).data());
                lap("second connection moved its message", t0);
            }
        }
    }

    @Test
    void killingThePeerProcessFailsPendingFuturesAndTheServerKeepsServingOthers(RdmaTestDevice device)
            throws Exception {
        InetSocketAddress address = serverAddress(device);
        try (RdmaServer server = RdmaServer.listen(address, OPTIONS);
                RdmaConnection other = RdmaClient.connect(address, OPTIONS)) {
            RdmaConnection otherAtServer = server.accept(Duration.ofSeconds(WAIT_SECONDS));
            assertNotNull(otherAtServer);
            long t0 = System.nanoTime();
            java.nio.file.Path peerLog = java.nio.file.Files.createTempFile("connecting-peer", ".log");
            Process peer = new ProcessBuilder(ConnectingPeer.command(address))
                    .redirectErrorStream(true)
                    .redirectOutput(peerLog.toFile())
                    .start();
            try {
                RdmaConnection doomed = server.accept(Duration.ofSeconds(2 * WAIT_SECONDS));
                assertNotNull(doomed, "the peer process connected");
                String hello = new String(await(doomed.receive()).data(), java.nio.charset.StandardCharsets.US_ASCII);
                assertEquals("hello from pid " + peer.pid(), hello);
                lap("peer process " + peer.pid() + " connected and said hello", t0);
                CompletableFuture<Received> pending = doomed.receive();
                CompletableFuture<Received> pendingOther = otherAtServer.receive();

                t0 = System.nanoTime();
                peer.destroyForcibly(); // SIGKILL: no close, no disconnect from the peer's code
                assertTrue(peer.waitFor(WAIT_SECONDS, TimeUnit.SECONDS));
                Throwable t = failure(pending);
                lap("after SIGKILL of the peer, its pending receive failed", t0);
                System.out.println("pending receive failed with: " + t);
                assertInstanceOf(ConnectionClosedException.class, t, "pending receive: " + t);
                assertTrue(doomed.isFailed());
                assertFalse(pendingOther.isDone(), "the other connection's receive is still pending");

                // the other connection still moves data, and a new one can connect
                byte[] msg = pattern(300, 31);
                await(other.send(region(other, msg), 0, msg.length));
                assertArrayEquals(msg, await(pendingOther).data(), "the other connection after the kill");
                try (RdmaConnection fresh = RdmaClient.connect(address, OPTIONS)) {
                    RdmaConnection freshAtServer = server.accept(Duration.ofSeconds(WAIT_SECONDS));
                    assertNotNull(freshAtServer, "a new connection after the kill");
                    CompletableFuture<Received> r = freshAtServer.receive();
                    byte[] m2 = pattern(64, 32);
                    await(fresh.send(region(fresh, m2), 0, m2.length));
                    assertArrayEquals(m2, await(r).data());
                }
            } finally {
                if (peer.isAlive()) {
                    peer.destroyForcibly();
                }
                System.out.println("peer process output: "
                        + java.nio.file.Files.readString(peerLog).strip());
                java.nio.file.Files.deleteIfExists(peerLog);
            }
        }
    }

    @Test
    void writesBeyondTheQueueDepthWaitAndAllComplete(RdmaTestDevice device) throws Exception {
        ConnectionOptions options = OPTIONS.withQueueDepths(8, 4);
        try (Pair p = new Pair(device, options)) {
            int n = 4 * p.client.maxOutstanding();
            assertEquals(32, n);
            byte[] data = pattern(n * 256, 9);
            MemoryRegion local = region(p.client, data);
            MemoryRegion target = region(p.serverSide, new byte[data.length]);
            List<CompletableFuture<Void>> writes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                writes.add(p.client.write(local, i * 256L, 256, target.address() + i * 256L, target.rkey()));
            }
            await(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
            for (CompletableFuture<Void> w : writes) {
                assertTrue(w.isDone() && !w.isCompletedExceptionally());
            }
            assertArrayEquals(data, bytes(target, 0, data.length));
        }
    }

    @Test
    void writesBeyondTheQueueDepthFromACompletionCallbackAreQueuedNotDeadlocked(RdmaTestDevice device)
            throws Exception {
        // A callback runs on the connection's poller, which is what frees send slots: if a request made there
        // waited for a slot, the connection would hang. Such requests queue in order and go out as slots free up.
        ConnectionOptions options = OPTIONS.withQueueDepths(8, 4);
        try (Pair p = new Pair(device, options)) {
            int n = 4 * p.client.maxOutstanding();
            byte[] data = pattern(n * 256, 11);
            MemoryRegion local = region(p.client, data);
            MemoryRegion target = region(p.serverSide, new byte[data.length]);
            List<CompletableFuture<Void>> writes = java.util.Collections.synchronizedList(new ArrayList<>());
            CompletableFuture<Thread> issuedOn = new CompletableFuture<>();
            // a message's arrival issues all the writes, on the poller thread: the callback is registered before the
            // server sends, so the poller is what runs it
            var _ = p.client.receive().thenRun(() -> {
                for (int i = 0; i < n; i++) {
                    writes.add(p.client.write(local, i * 256L, 256, target.address() + i * 256L, target.rkey()));
                }
                issuedOn.complete(Thread.currentThread()); // (never, if a request above waited for a slot)
            });
            MemoryRegion ping = region(p.serverSide, new byte[] {42});
            await(p.serverSide.send(ping, 0, 1));
            assertTrue(
                    await(issuedOn).getName().startsWith("rdma-connection-"),
                    "issued on the poller thread: " + issuedOn.join().getName());
            assertEquals(n, writes.size(), "every request returned a future at once, none blocked");
            await(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
            assertArrayEquals(data, bytes(target, 0, data.length));
        }
    }
}
