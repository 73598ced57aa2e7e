package org.panamardma.rdmatool;

import static org.panamardma.rdmatool.PerfLoops.sendLatency;
import static org.panamardma.rdmatool.PerfLoops.writeLatency;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmConnector;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.EventChannel;

/**
 * A perf server: serves one client connection after the other on its own thread until closed. Each connection
 * says in its connect private data which test to run; the server answers with its buffer in the accept private
 * data, takes its part (echoes for send_lat and write_lat, nothing for the others) and waits for the client's
 * final SEND.
 */
public final class PerfServer implements AutoCloseable {
    private final EventChannel channel;
    private final CmId listener;
    private final Thread thread;
    private final PrintStream out;
    private final Duration timeout;
    private volatile boolean closing;
    private final AtomicInteger served = new AtomicInteger();

    private PerfServer(InetSocketAddress bind, Duration timeout, PrintStream out) throws RdmaException {
        this.out = out;
        this.timeout = timeout;
        channel = EventChannel.create();
        try {
            listener = CmConnector.listen(channel, bind, 8);
        } catch (RdmaException | RuntimeException e) {
            channel.close();
            throw e;
        }
        thread = Thread.ofPlatform().name("perf-server").daemon(true).unstarted(this::run);
        thread.start();
    }

    public static PerfServer start(InetSocketAddress bind, Duration timeout, PrintStream out) throws RdmaException {
        return new PerfServer(bind, timeout, out);
    }

    /** How many connections it has served to the end. */
    public int served() {
        return served.get();
    }

    /** Blocks until the server thread ends (it ends only when closed, or on a listener failure). */
    public void join() throws InterruptedException {
        thread.join();
    }

    private void run() {
        try {
            while (!closing) {
                CmEvent e = listener.await(Duration.ofMillis(200));
                if (e == null) {
                    continue;
                }
                if (!e.is(CmEventType.CONNECT_REQUEST)) {
                    out.println("perf server: ignoring " + e);
                    continue;
                }
                serveOne(e);
            }
        } catch (RdmaException | RuntimeException e) {
            if (!closing) {
                out.println("perf server: stopped: " + e.getMessage());
            }
        } finally {
            listener.close();
            channel.close();
        }
    }

    private void serveOne(CmEvent request) {
        CmId id = request.id();
        PerfRequest r = PerfRequest.decode(request.privateData());
        if (r == null) {
            out.println("perf server: rejecting a connection that did not ask for a perf test");
            try {
                id.reject(new byte[0]);
            } catch (RdmaException ignored) {
                // it goes anyway
            } finally {
                id.close();
            }
            return;
        }
        out.printf(
                "perf server: %s, %d iterations, sizes %d..%d, from %s%n",
                r.test().cliName(),
                r.iters(),
                r.minSize(),
                r.maxSize(),
                id.peerAddress().map(Object::toString).orElse("?"));
        PerfEndpoint ep = new PerfEndpoint(r.maxSize(), Perf.RX_DEPTH);
        try {
            ep.create(id);
            ep.remoteAddress = r.address();
            ep.remoteRkey = r.rkey();
            byte[] reply = PerfRequest.encodeReply(ep.mr.address(), ep.mr.rkey());
            id.accept(ConnectionParameters.DEFAULTS.withPrivateData(reply));
            id.expect(CmEventType.ESTABLISHED, timeout);
            if (r.warmup() > 0) {
                long deadline = System.nanoTime() + timeout.toNanos();
                switch (r.test()) {
                    case SEND_LAT -> sendLatency(ep, r.sizes().get(0), r.warmup(), true, deadline);
                    case WRITE_LAT -> writeLatency(ep, r.sizes().get(0), r.warmup(), true, deadline);
                    default -> {}
                }
            }
            for (int size : r.sizes()) {
                long deadline = System.nanoTime() + timeout.toNanos();
                switch (r.test()) {
                    case SEND_LAT -> sendLatency(ep, size, r.iters(), true, deadline);
                    case WRITE_LAT -> writeLatency(ep, size, r.iters(), true, deadline);
                    default -> {} // the client alone drives READs, atomics and write_bw
                }
            }
            // The client's final SEND; the passive tests may take long, hence the generous wait. Waited for
            // blocked in the kernel: in read_lat, atomic_lat and write_bw this side has nothing to do, and a
            // spinning server would take CPU from the client it is measuring (perftest's passive side blocks,
            // too). On the single-threaded emulated testbed spinning made Java's read/atomic latency up to 50x
            // C's, and polling every millisecond in between still 5-7x (issue 15).
            ep.awaitReceiveBlocking(System.nanoTime()
                    + timeout.toNanos() * Math.max(1, r.sizes().size()));
            // The client's final SEND says its run is over: served, whatever becomes of our answer below.
            served.incrementAndGet();
            // Answer it, then let the client be the one to disconnect, once it has our answer. Whoever closes
            // first must have nothing left in flight: on siw a SEND completes once handed to TCP, and a
            // disconnect right after it flushed the peer's receive (seen in CI, in both directions).
            long deadline = System.nanoTime() + timeout.toNanos();
            ep.send(1, deadline);
            try {
                ep.awaitSends(deadline);
            } catch (org.panamardma.verbs.WorkCompletionException e) {
                // The client disconnects as soon as it has the answer; siw completes a SEND whose bytes are
                // already with TCP but whose work request it has not retired yet as flushed when the QP
                // leaves RTS (siw_qp.c, siw_sq_flush: "Flush an in-progress WQE if present"). Seen in
                // a CI rehearsal on an overloaded host: the client had its answer and its result, our answer
                // was flushed. Nothing the client needs is lost; say so and go on.
                out.printf(
                        "perf server: %s done; the answer completed as %s (the client disconnected as it "
                                + "went out)%n",
                        r.test().cliName(), e.status());
                return;
            }
            out.printf("perf server: %s done%n", r.test().cliName());
            try {
                id.expect(CmEventType.DISCONNECTED, timeout);
            } catch (RdmaException e) {
                out.println("perf server: the client did not disconnect: " + e.getMessage());
            }
        } catch (org.panamardma.verbs.WorkCompletionException e) {
            // the client closed or failed before its final SEND: its QP's disconnect flushed ours
            out.println("perf server: the client left before the end of the run (" + e.status() + "; " + ep.describe()
                    + ")");
        } catch (RdmaException | RuntimeException e) {
            out.println("perf server: connection failed: " + e.getMessage());
        } finally {
            ep.close();
        }
    }

    @Override
    public void close() throws InterruptedException {
        closing = true;
        thread.join(10_000);
    }
}
