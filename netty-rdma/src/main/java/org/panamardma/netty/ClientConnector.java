package org.panamardma.netty;

import io.netty.channel.ConnectTimeoutException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.panamardma.verbs.Errno;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.TransportType;
import org.panamardma.verbs.WcStatus;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.StreamStartProbe;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client {@link RdmaChannel}'s connect, driven by its rdma_cm events: address and route resolution, the connection,
 * on siw the stream start probe (verbs-ffm's {@link StreamStartProbe}), and another attempt after a transient failure,
 * all within the channel's {@code CONNECT_TIMEOUT_MILLIS}. Event loop only.
 */
final class ClientConnector {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaChannel.class);
    /**
     * How many times a connect is tried that ends in CONNECT_ERROR, in rdma_connect's EADDRINUSE, or on iWARP in
     * UNREACHABLE with -ETIMEDOUT (see RdmaClient.connect: a transient failure on siw; iWARP has no CM retries, only
     * the initiator's MPA reply timer, so a server slow to accept ends the attempt).
     */
    private static final int CONNECT_ATTEMPTS = 3;

    private final RdmaChannel ch;
    private final long deadline;
    private int attempts;
    private int probes;
    private long probeWaitNanos;
    private boolean probeAnswered;

    private ClientConnector(RdmaChannel ch, long deadlineNanos) {
        this.ch = ch;
        this.deadline = deadlineNanos;
    }

    /** Starts the connect of {@code ch} (its remote address set): its deadline, then the first attempt. */
    static void start(RdmaChannel ch) {
        int millis = ch.setUp.timeoutMillis();
        ch.connector = new ClientConnector(ch, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis));
        ch.setUp.deadline(() -> ch.setUp.fail(
                new ConnectTimeoutException("connection timed out after " + millis + " ms: " + ch.requestedRemote)));
        ch.connector.startAttempt();
    }

    /** One connect attempt: a new id, address resolution; the rest follows from its events. */
    void startAttempt() {
        attempts++;
        try {
            ch.id = ch.handler.cmChannel().createId();
            ch.handler.watchCmId(ch.id, ch.io);
            resolve();
        } catch (RdmaException | RuntimeException e) {
            ch.setUp.fail(failure("starting the connection", e));
        }
    }

    private void resolve() throws RdmaException {
        // attempts of at most a second: the kernel misses an ARP answer that comes while it queues the request,
        // and then waits out the whole timeout (CmConnector.RESOLVE_ATTEMPT says why)
        ch.id.resolveAddress(ch.requestedLocal, ch.requestedRemote, Duration.ofMillis(Math.min(1000, leftMillis())));
    }

    private long leftMillis() {
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    }

    void onCmEvent(CmEvent e) throws RdmaException {
        switch (e.type()) {
            case ADDR_RESOLVED -> ch.id.resolveRoute(Duration.ofMillis(leftMillis()));
            case ADDR_ERROR -> {
                if (e.status() == -Errno.ETIMEDOUT && deadline - System.nanoTime() > 0) {
                    resolve();
                } else {
                    ch.setUp.fail(cmFailure("address resolution", e));
                }
            }
            case ROUTE_RESOLVED -> {
                ch.setUp.makeResources();
                try {
                    ch.id.connect(ch.setUp.parameters());
                } catch (RdmaException taken) {
                    if (!CmConnector.portChosenWasTaken(taken)) {
                        throw taken;
                    }
                    // iWARP: a TCP socket of the host holds the port rdma_cm chose for the id (CI, stop of
                    // 2026-11-27: a gRPC connect on siw); a new id gets a new port
                    retryOrFail(
                            taken.getMessage(),
                            "the local port rdma_cm chose is held by a TCP socket",
                            () -> failure("connect", taken));
                }
            }
            case ESTABLISHED -> {
                ch.peer = ConnectPrivateData.decode(e.privateData());
                ch.setUp.startStream();
                if (StreamStartProbe.needed(ch.res.device.context) && StreamStartProbe.possible(e)) {
                    probeWaitNanos = StreamStartProbe.FIRST_WAIT_NANOS;
                    probe();
                } else {
                    ch.setUp.connected();
                }
            }
            case CONNECT_ERROR -> retryOrFail(e, "a connection that could not be set up");
            case UNREACHABLE -> {
                if (e.status() == -Errno.ETIMEDOUT
                        && ch.res != null
                        && ch.res.device.context.transportType() == TransportType.IWARP) {
                    retryOrFail(e, "iWARP: the server did not answer the MPA request in time");
                } else {
                    ch.setUp.fail(cmFailure("connect", e));
                }
            }
            case DISCONNECTED, DEVICE_REMOVAL, TIMEWAIT_EXIT -> ch.end.peerGone(e);
            default -> ch.setUp.fail(cmFailure("connect", e));
        }
    }

    /** Another attempt after a transient connect failure (see CONNECT_ATTEMPTS), while attempts and time are left. */
    private void retryOrFail(CmEvent e, String why) {
        retryOrFail(e.type().cName() + " (status " + e.status() + ")", why, () -> cmFailure("connect", e));
    }

    private void retryOrFail(String what, String why, Supplier<ConnectException> failure) {
        if (attempts < CONNECT_ATTEMPTS && deadline - System.nanoTime() > 0) {
            LOG.info(
                    "connect to {}: {}, {}; trying again, attempt {} of {}",
                    ch.requestedRemote,
                    what,
                    why,
                    attempts + 1,
                    CONNECT_ATTEMPTS);
            dropAttempt();
            startAttempt();
        } else {
            ch.setUp.fail(failure.get());
        }
    }

    /** Closes a failed attempt's id and resources before the next (CONNECT_ERROR). */
    private void dropAttempt() {
        if (ch.res != null) {
            ch.handler.unwatchCq(ch.res.cq);
        }
        if (ch.id != null) {
            ch.handler.unwatchCmId(ch.id);
            ch.id.close();
            ch.id = null;
        }
        if (ch.res != null) {
            ch.res.close();
            ch.res = null;
        }
    }

    /**
     * Stream start probe (siw): a READ of the peer's stream start word, again after each wait without an answer.
     *
     * <p>Not verbs-ffm's zero-length READ: siw answers a READ that arrives while the peer's queue pair is sending from
     * an entry of its inbound READ queue, and for a zero-length READ it leaves the response's one SGE as the request
     * sent before left it (drivers/infiniband/sw/siw/siw_qp_tx.c, {@code siw_activate_tx}: {@code num_sge = 0} and
     * {@code sge[0]} untouched; {@code siw_qp_sq_proc_tx} then sets {@code num_sge = 1} for every READ response).
     * The answer carries the length and bytes of the peer's last SEND, here a gRPC server's first SETTINGS: this side
     * saw a 35-byte response to a READ of none, terminated the connection ({@code siw: rresp len: 35 != 0}, DDP
     * tagged base-or-bounds error) and the probe failed with GENERAL_ERR (rehearsal r17). A READ of 8 bytes has its
     * own SGE wherever the peer answers it from. A peer that names no word (one not on Soft-iWARP) gets the
     * zero-length READ.
     */
    private void probe() {
        if (ch.state != RdmaChannel.State.CONNECTING || probeAnswered) {
            return;
        }
        if (probes < StreamStartProbe.MAX_PROBES) {
            probes++;
            try {
                long wrId = WrIds.of(WrIds.PROBE, probes);
                MemoryRegion sink = ch.res.device.streamStart;
                if (sink != null && ch.peer.streamStartKey() != 0) {
                    ch.res.qp.postRead(
                            wrId,
                            sink,
                            DeviceResources.SINK_OFFSET,
                            DeviceResources.WORD_LENGTH,
                            ch.peer.streamStartAddress(),
                            ch.peer.streamStartKey(),
                            SendFlags.SIGNALED);
                } else {
                    ch.res.qp.postRead(wrId, ch.res.sendRegion, 0, 0, 0L, 0, SendFlags.SIGNALED);
                }
            } catch (RdmaException | RuntimeException e) {
                ch.setUp.fail(failure("the stream start probe", e));
                return;
            }
        }
        long wait = probeWaitNanos;
        probeWaitNanos = StreamStartProbe.nextWaitNanos(probeWaitNanos);
        // a failure the round does not handle itself fails the connect, as a failed post does, instead of leaving it to
        // the connect's deadline
        LoopTasks.schedule(
                ch.eventLoop(),
                this::probe,
                wait,
                TimeUnit.NANOSECONDS,
                e -> ch.setUp.fail(failure("the stream start probe", e)));
    }

    /** A probe's READ completed: the stream has started, the channel is connected. */
    void onProbeAnswered() {
        if (ch.state == RdmaChannel.State.CONNECTING && !probeAnswered) {
            probeAnswered = true;
            if (probes > 1) {
                LOG.info("connect to {}: stream start probe {} answered", ch.requestedRemote, probes);
            }
            ch.setUp.connected();
        }
    }

    /** A probe's READ failed. */
    void onProbeFailed(WcStatus status) {
        ch.setUp.fail(new ConnectException(
                "connect to " + ch.requestedRemote + ": the stream start probe failed: " + status));
    }

    private ConnectException failure(String step, Exception e) {
        ConnectException c =
                new ConnectException("connect to " + ch.requestedRemote + ": " + step + ": " + e.getMessage());
        c.initCause(e);
        return c;
    }

    private ConnectException cmFailure(String step, CmEvent e) {
        return new ConnectException("connect to " + ch.requestedRemote + ": " + step + " ended in "
                + e.type().cName() + " (status " + e.status() + ")"
                + (e.type() == CmEventType.REJECTED
                        ? ": refused by the peer (" + ServerAccept.rejectReason(e.privateData()) + ")"
                        : ""));
    }
}
