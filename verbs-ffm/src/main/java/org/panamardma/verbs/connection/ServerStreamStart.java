package org.panamardma.verbs.connection;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.StreamStartProbe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The passive side of Soft-iWARP's stream-start race ({@link StreamStartProbe} tells the active side's): on a
 * connection {@link RdmaServer} accepted on siw, makes sure the client's first message is not left unread.
 *
 * <p><b>The cause.</b> siw's {@code siw_accept} (drivers/infiniband/sw/siw/siw_cm.c, kernels 6.1 and 6.12 alike)
 * moves the queue pair to RTS, sets the connection endpoint to RDMA mode, sends the MPA reply, and only then
 * installs the queue pair's data-ready callback on the TCP socket ({@code siw_qp_socket_assoc}) and reports
 * ESTABLISHED. A client may send as soon as it has read the MPA reply: bytes of its first message that arrive in
 * between wake the connection manager's callback ({@code siw_cm_llp_data_ready}), which ignores data in RDMA mode.
 * They stay in the socket, unread, until the client sends more: then the queue pair's callback
 * ({@code siw_qp_llp_data_ready}) reads the stream from its first unread byte. A client that sends one call and
 * waits for the reply (every RPC client; the Linux kernel's NFS client among them) waits until its own timeout.
 * Posting receives before the accept (this library does, as svcrdma does) does not help: the bytes never reach the
 * queue pair. Neither does anything done before {@code rdma_accept} returns: the window is inside the kernel's
 * accept.
 *
 * <p><b>What is done, and why this.</b> Once ESTABLISHED, the bytes either were read or are still waiting in the
 * socket; no later byte can be left behind, since the queue pair's callback is in place. The kernel shows how many
 * received bytes a TCP socket holds unread, siw's own sockets included ({@code /proc/net/tcp}, {@link
 * TcpReceiveQueue}). So the server looks once: nothing unread, nothing to do, and a well-behaved client never sees
 * a thing; bytes unread, and the server makes the client send more: a zero-length RDMA READ, which the client's
 * device answers by itself (RFC 6581's ready-to-receive message; siw answers it without looking its key up). The
 * answer wakes our queue pair's callback, which reads the stuck message and then the answer. Probing only when bytes
 * are stuck is also what makes it safe: bytes from the client prove the client has read the MPA reply, whereas a
 * message reaching a siw client in the same read as the MPA reply fails its connect ({@code siw_recv_mpa_rr}: "peer
 * sent extra data"), which a server speaking first at once would risk for every client. A READ needs the
 * client's READ resources: RPC-over-RDMA clients grant them (the server READs their Read chunks); a client that
 * granted none cannot be helped and is logged. Where the socket cannot be found (no {@code /proc}, an address the
 * tables show otherwise) the server probes as the client side does, after a grace period that leaves the client
 * time to read its MPA reply, until a READ is answered.
 *
 * <p><b>Only bytes that stay.</b> The READ must not reach a client whose queue pair is sending: siw then answers a
 * zero-length READ with the length of the client's last SEND ({@link StreamStartProbe} has the kernel functions),
 * the server's device terminates the connection ({@code siw: rresp len: 68 != 0}, 68 bytes being an RPC-over-RDMA
 * NULL call) and the client's calls fail. Rehearsal r31 met it: this library's client probes by itself, its first
 * zero-length READ was what waited in the server's socket, the server probed at once, the client's next probe woke
 * the stream and got its answer, the client sent five calls back to back, and the server's READ arrived among them.
 * Bytes that wait in the socket at ESTABLISHED are not all stuck either: the queue pair may be about to read them.
 * So the server probes only when the unread count stays the same and above zero for {@link #QUIET_NANOS}: bytes
 * the queue pair reads, or that the client's next bytes wake (its own probe, or a pipelined call behind the first),
 * are gone by then, and a client whose first message really is stuck is one that waits for its reply, sending
 * nothing, which is when a READ is answered right. Such a client's first reply comes that much later.
 */
final class ServerStreamStart {
    private static final Logger LOG = LoggerFactory.getLogger(ServerStreamStart.class);
    /** Without a view of the socket: how long the client has to read its MPA reply before the first probe. */
    static final long BLIND_GRACE_NANOS = 100_000_000L;
    /**
     * How long unread bytes must stay, unchanged, before the server probes: several times what this library's client
     * waits before its second probe ({@link StreamStartProbe#FIRST_WAIT_NANOS}), as timers run late under emulation;
     * short beside the second a first call may take (issue 24).
     */
    static final long QUIET_NANOS = 200_000_000L;
    /** How often the socket is looked at meanwhile. */
    static final long LOOK_EVERY_NANOS = 10_000_000L;

    /** What the looks at the socket of a fresh connection found. */
    enum Unread {
        /** Nothing waits: the queue pair has read all the client sent. */
        NONE,
        /** Bytes stayed unread, unchanged, for {@link #QUIET_NANOS}: left behind by the hand-over. */
        STUCK,
        /** The socket is not in the kernel's tables (or no longer): nothing is known. */
        UNKNOWN
    }

    /** A clock and a way to wait, so that the rule can be tested without either. */
    interface Time {
        /** The system's monotonic clock and a sleep. */
        Time SYSTEM = new Time() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public void sleepNanos(long nanos) throws InterruptedException {
                TimeUnit.NANOSECONDS.sleep(nanos);
            }
        };

        long nanoTime();

        void sleepNanos(long nanos) throws InterruptedException;
    }

    /**
     * Looks at the socket until its unread bytes are gone, or have stayed the same for {@link #QUIET_NANOS} (a
     * change starts the wait again), or {@code timeoutNanos} has passed (then they count as stuck).
     *
     * @param unread the socket's unread bytes now (empty when the socket is not found)
     * @param time the clock and the wait
     * @param timeoutNanos the most time to spend
     * @return what was found
     * @throws InterruptedException if interrupted while waiting
     */
    static Unread settle(Supplier<OptionalLong> unread, Time time, long timeoutNanos) throws InterruptedException {
        long start = time.nanoTime();
        OptionalLong seen = unread.get();
        long since = start;
        while (true) {
            if (seen.isEmpty()) {
                return Unread.UNKNOWN;
            }
            if (seen.getAsLong() == 0) {
                return Unread.NONE;
            }
            long now = time.nanoTime();
            if (now - since >= QUIET_NANOS || now - start >= timeoutNanos) {
                return Unread.STUCK;
            }
            time.sleepNanos(LOOK_EVERY_NANOS);
            OptionalLong next = unread.get();
            if (next.isPresent() && next.getAsLong() != seen.getAsLong()) {
                since = time.nanoTime(); // the queue pair is reading, or the client sent more: not settled yet
            }
            seen = next;
        }
    }

    private ServerStreamStart() {}

    /** Whether connections on the device of {@code connection} need this: Soft-iWARP. */
    static boolean needed(RdmaConnection connection) throws RdmaException {
        return StreamStartProbe.needed(connection.id().context());
    }

    /**
     * Once the connection is ESTABLISHED and handed over, on a virtual thread: looks at the socket (a read of
     * /proc/net/tcp) and, if the client's bytes wait there, sends zero-length READs until one is answered.
     */
    static void watch(RdmaConnection connection, CmEvent established, Duration timeout) {
        Thread.ofVirtual()
                .name(connection.name() + "-stream-start")
                .start(() -> look(connection, established, timeout));
    }

    private static void look(RdmaConnection connection, CmEvent established, Duration timeout) {
        // this side's ORD: on iWARP the ESTABLISHED event carries this side's IRD as initiator_depth and its ORD as
        // responder_resources (cma.c cma_iw_handler; siw_cm.c siw_cm_upcall signals the cep's ird and ord). It read
        // the IRD once, which is 0 with Linux's client (xprtrdma offers RDMA Read resources but initiates no Read:
        // its initiator depth 0): no probe, and a first call left unread until the client's retransmission 60 s
        // later (the kernel client's reconnect after a server restart, stop of 2026-11-28)
        boolean mayRead = established.parameters().responderResources() >= 1;
        InetSocketAddress local = connection.id().localAddress().orElse(null);
        InetSocketAddress peer = connection.id().peerAddress().orElse(null);
        Supplier<OptionalLong> socket =
                () -> local == null || peer == null ? OptionalLong.empty() : TcpReceiveQueue.unreadBytes(local, peer);
        Unread found;
        try {
            found = settle(socket, Time.SYSTEM, timeout.toNanos());
        } catch (InterruptedException e) {
            return;
        }
        if (found == Unread.NONE) {
            return; // nothing was left behind, and nothing can be from now on
        }
        OptionalLong unread = found == Unread.STUCK ? socket.get() : OptionalLong.empty();
        if (found == Unread.STUCK && (unread.isEmpty() || unread.getAsLong() == 0)) {
            return; // read between the last look and this one, or the connection is gone
        }
        if (!mayRead) {
            if (unread.isPresent()) {
                LOG.warn(
                        "{}: Soft-iWARP left the client's first {} bytes unread, and the connection has no RDMA "
                                + "READ resources (ORD 0) to make it send more: its first message waits for its next "
                                + "one (see StreamStartProbe)",
                        connection.name(),
                        unread.getAsLong());
            }
            return;
        }
        if (unread.isPresent()) {
            LOG.debug(
                    "{}: {} bytes from the client were left unread by Soft-iWARP's hand-over; probing",
                    connection.name(),
                    unread.getAsLong());
            if (!probe(connection, timeout)) {
                LOG.debug("{}: no stream start probe was answered", connection.name());
            }
            return;
        }
        // the socket cannot be seen: probe as the active side does, once the client has had time to read its MPA
        // reply (a READ arriving with it would fail the client's connect)
        try {
            TimeUnit.NANOSECONDS.sleep(BLIND_GRACE_NANOS);
        } catch (InterruptedException e) {
            return;
        }
        boolean answered = probe(connection, timeout);
        LOG.debug(
                "{}: the connection's socket is not in /proc/net/tcp; a stream start probe was {}answered",
                connection.name(),
                answered ? "" : "not ");
    }

    /**
     * Zero-length READs until one is answered: the next sent after each wait without an answer, waits doubling, at
     * most {@link StreamStartProbe#MAX_PROBES} in all, all within {@code timeout}.
     */
    static boolean probe(RdmaConnection connection, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        long wait = StreamStartProbe.FIRST_WAIT_NANOS;
        List<CompletableFuture<Void>> probes = new ArrayList<>(List.of(connection.readNothing()));
        while (true) {
            long left = deadline - System.nanoTime();
            try {
                CompletableFuture.anyOf(probes.toArray(CompletableFuture[]::new))
                        .get(Math.max(1, Math.min(wait, left)), TimeUnit.NANOSECONDS);
                return true;
            } catch (TimeoutException e) {
                if (deadline - System.nanoTime() <= 0) {
                    return false;
                }
                wait = StreamStartProbe.nextWaitNanos(wait);
                if (probes.size() < StreamStartProbe.MAX_PROBES) {
                    probes.add(connection.readNothing());
                }
            } catch (ExecutionException e) {
                return false; // the connection ended: nothing left to read for
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }
}
