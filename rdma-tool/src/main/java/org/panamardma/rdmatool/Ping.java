package org.panamardma.rdmatool;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.connection.ConnectionClosedException;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaClient;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.RdmaServer;
import org.panamardma.verbs.connection.Received;

/**
 * {@code rdma-tool ping}: an rping-like check that a peer is reachable over RDMA and that data arrives intact.
 * The client SENDs a pattern that differs per ping and per byte; the server SENDs every message it receives back
 * unchanged; the client compares every byte and prints the round-trip time of each ping and a summary.
 *
 * <p>Built on the connection layer ({@link RdmaClient}/{@link RdmaServer}): the round-trip time therefore includes
 * its futures and poller thread, as rping's includes its CQ thread and semaphores. For the bare-verbs figures use
 * {@code perf --test send_lat}.
 */
public final class Ping {
    /** rping's default port. */
    public static final int DEFAULT_PORT = 7174;
    /** The largest message: the receive buffers of both sides are this big. */
    public static final int MAX_SIZE = 65536;

    private Ping() {}

    /** What a client run saw. {@code rttNanos} holds the round trips of the echoed pings, in order. */
    public record Result(int sent, int echoed, int verified, int corrupted, long[] rttNanos) {
        public LatencyStats stats() {
            return LatencyStats.of(rttNanos.clone(), echoed, 1);
        }

        public boolean ok() {
            return sent == verified;
        }
    }

    static ConnectionOptions options(Duration timeout) {
        return ConnectionOptions.DEFAULTS
                .withQueueDepths(4, 4)
                .withReceiveBufferSize(MAX_SIZE)
                .withTimeout(timeout);
    }

    /** The byte {@code j} of ping {@code seq}: differs between pings and along the message. */
    static byte pattern(int seq, int j) {
        return (byte) (seq * 31 + j * 7 + (j >>> 8));
    }

    /**
     * A server echoing every message back on every connection until closed. Each connection is served by its own
     * virtual thread.
     */
    public static RdmaServer serve(InetSocketAddress bind, Duration timeout, PrintStream out) throws RdmaException {
        return RdmaServer.listen(bind, options(timeout), conn -> {
            out.printf(
                    "ping server: connection from %s on %s%n",
                    conn.peerAddress().map(Object::toString).orElse("?"), conn.deviceName());
            Thread.ofVirtual().name("ping-echo-" + conn.name()).start(() -> echo(conn, out));
        });
    }

    private static void echo(RdmaConnection conn, PrintStream out) {
        long echoed = 0;
        String peer = conn.peerAddress().map(Object::toString).orElse("peer");
        try (conn) {
            MemoryRegion buf = conn.protectionDomain().allocate(MAX_SIZE, Set.of(Access.LOCAL_WRITE));
            while (true) {
                Received r = conn.receive().get();
                MemorySegment.copy(r.data(), 0, buf.segment(), ValueLayout.JAVA_BYTE, 0, r.length());
                conn.send(buf, 0, r.length()).get();
                echoed++;
            }
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof ConnectionClosedException) {
                out.printf("ping server: %s closed after %d echoes%n", peer, echoed);
            } else {
                out.printf("ping server: %s failed after %d echoes: %s%n", peer, echoed, cause);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RdmaException | RuntimeException e) {
            out.printf("ping server: %s failed: %s%n", peer, e);
        }
    }

    /**
     * Connects to {@code server}, sends {@code count} pings of {@code size} bytes one after the other (each waits
     * for its echo, up to {@code timeout}) and prints each and a summary to {@code out}.
     *
     * @throws RdmaException the connection could not be made (refused, unreachable, timeout): nothing was sent
     */
    public static Result run(InetSocketAddress server, int size, int count, Duration timeout, PrintStream out)
            throws RdmaException, InterruptedException {
        if (size < 1 || size > MAX_SIZE) {
            throw new IllegalArgumentException("size must be 1.." + MAX_SIZE + ": " + size);
        }
        String host = server.getAddress().getHostAddress();
        try (RdmaConnection conn = RdmaClient.connect(server, options(timeout))) {
            out.printf(
                    "PING %s port %d over %s: %d bytes, %d pings%n",
                    host, server.getPort(), conn.deviceName(), size, count);
            MemoryRegion buf = conn.protectionDomain().allocate(size, Set.of(Access.LOCAL_WRITE));
            MemorySegment seg = buf.segment();
            long[] rtts = new long[count];
            int echoed = 0;
            int verified = 0;
            int corrupted = 0;
            for (int seq = 1; seq <= count; seq++) {
                for (int j = 0; j < size; j++) {
                    seg.set(ValueLayout.JAVA_BYTE, j, pattern(seq, j));
                }
                CompletableFuture<Received> reply = conn.receive();
                long t0 = System.nanoTime();
                Received r;
                try {
                    conn.send(buf, 0, size).get(timeout.toNanos(), TimeUnit.NANOSECONDS);
                    r = reply.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    out.printf("ping %d: failed: %s%n", seq, e.getCause().getMessage());
                    break;
                } catch (TimeoutException e) {
                    out.printf("ping %d: no echo within %d ms%n", seq, timeout.toMillis());
                    break;
                }
                long rtt = System.nanoTime() - t0;
                rtts[echoed++] = rtt;
                int bad = firstMismatch(r.data(), r.length(), seq, size);
                if (bad < 0) {
                    verified++;
                    out.printf("%d bytes from %s: seq=%d verified rtt=%.1f us%n", r.length(), host, seq, rtt / 1000.0);
                } else {
                    corrupted++;
                    out.printf(
                            "%d bytes from %s: seq=%d CORRUPTED at byte %d (expected %d bytes) rtt=%.1f us%n",
                            r.length(), host, seq, bad, size, rtt / 1000.0);
                }
            }
            Result result = new Result(count, echoed, verified, corrupted, rtts);
            out.printf("--- %s ping statistics ---%n", host);
            out.printf(
                    "%d sent, %d echoed, %d verified byte for byte, %d corrupted%n",
                    count, echoed, verified, corrupted);
            if (echoed > 0) {
                LatencyStats s = result.stats();
                out.printf(
                        "rtt min/avg/p50/p99/max = %.1f/%.1f/%.1f/%.1f/%.1f us%n",
                        s.minUs(), s.avgUs(), s.p50Us(), s.p99Us(), s.maxUs());
            }
            return result;
        }
    }

    /** The index of the first byte that differs from ping {@code seq}'s pattern, or -1 if all {@code size} match. */
    static int firstMismatch(byte[] data, int length, int seq, int size) {
        for (int j = 0; j < Math.min(length, size); j++) {
            if (data[j] != pattern(seq, j)) {
                return j;
            }
        }
        return length == size ? -1 : Math.min(length, size);
    }
}
