package org.panamardma.verbs.cm;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;

/**
 * The rdma_cm steps of one connection, done synchronously: for tests and simple programs. Each step waits for its
 * event with the given timeout and fails with a {@link CmEventException} carrying the event that came instead
 * (REJECTED with the peer's status and private data, UNREACHABLE, ADDR_ERROR...) or a {@link CmTimeoutException}.
 * On failure the id is closed (with its queue pair).
 */
public final class CmConnector {
    private CmConnector() {}

    /**
     * Makes the queue pair of a connection on the id's device: allocate (or reuse) a PD and CQs on
     * {@code id.context()}, then {@code return id.createQueuePair(pd, options)}.
     */
    @FunctionalInterface
    public interface QueuePairFactory {
        QueuePair create(CmId id) throws RdmaException;
    }

    /**
     * An established connection: the id (close it to disconnect and free everything of it), its queue pair, the
     * CONNECT_REQUEST it was accepted from (server side; null on the client) and the ESTABLISHED event (on the
     * client with the server's accept private data).
     */
    public record Connection(CmId id, QueuePair queuePair, CmEvent request, CmEvent established)
            implements AutoCloseable {
        /** The private data the peer sent: the client's connect data on the server, the server's accept data on the client. */
        public byte[] peerPrivateData() {
            return (request != null ? request : established).privateData();
        }

        /** Closes the id and its queue pair (without waiting for DISCONNECTED). */
        @Override
        public void close() {
            id.close();
        }
    }

    /**
     * Client: a new id on {@code channel}, address and route resolution to {@code server}, the queue pair from
     * {@code factory}, connect with {@code parameters}, ESTABLISHED. Each step may take up to {@code timeout}.
     */
    public static Connection connect(EventChannel channel, InetSocketAddress server, ConnectionParameters parameters,
                                     QueuePairFactory factory, Duration timeout) throws RdmaException {
        Objects.requireNonNull(factory, "factory");
        CmId id = channel.createId();
        try {
            // the CM's own timeouts end before ours, so that its reason (ADDR_ERROR -ETIMEDOUT...) is reported
            Duration wait = timeout.plusSeconds(1);
            id.resolveAddress(server, timeout);
            id.expect(CmEventType.ADDR_RESOLVED, wait);
            id.resolveRoute(timeout);
            id.expect(CmEventType.ROUTE_RESOLVED, wait);
            QueuePair qp = factory.create(id);
            id.connect(parameters);
            CmEvent established = id.expect(CmEventType.ESTABLISHED, wait);
            return new Connection(id, qp, null, established);
        } catch (RdmaException | RuntimeException | Error e) {
            id.close();
            throw e;
        }
    }

    /** Server: a new id on {@code channel} bound to {@code address} and listening. */
    public static CmId listen(EventChannel channel, InetSocketAddress address, int backlog) throws RdmaException {
        CmId id = channel.createId();
        try {
            id.bind(address);
            id.listen(backlog);
            return id;
        } catch (RdmaException | RuntimeException | Error e) {
            id.close();
            throw e;
        }
    }

    /**
     * Server: waits up to {@code timeout} for the next CONNECT_REQUEST on {@code listener}, makes its queue pair
     * with {@code factory}, accepts with {@code parameters} and waits for ESTABLISHED.
     */
    public static Connection acceptOne(CmId listener, ConnectionParameters parameters, QueuePairFactory factory,
                                       Duration timeout) throws RdmaException {
        Objects.requireNonNull(factory, "factory");
        CmEvent request = listener.expect(CmEventType.CONNECT_REQUEST, timeout);
        CmId id = request.id();
        try {
            QueuePair qp = factory.create(id);
            id.accept(parameters);
            CmEvent established = id.expect(CmEventType.ESTABLISHED, timeout);
            return new Connection(id, qp, request, established);
        } catch (RdmaException | RuntimeException | Error e) {
            id.close();
            throw e;
        }
    }
}
