package org.panamardma.verbs.connection;

import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.connection.agent.AgentMode;
import org.panamardma.verbs.connection.agent.AgentStatistics;
import org.panamardma.verbs.connection.agent.ConnectionAgent;
import org.panamardma.verbs.connection.agent.Handshake;

/**
 * An established connection as an object: its parts wired together (the send queue, the receive pool, the RFC 7306
 * agent, the poller and how the connection ends), what it says about itself (its ends, its peer's private data and
 * parameters, who provides which operation), and whether it still works. The requests with futures are
 * {@link RdmaConnection}'s, which alone extends this class.
 *
 * <p>Package-private, so users see one class: its public methods are {@link RdmaConnection}'s, and javadoc documents
 * them there.
 */
abstract sealed class EstablishedConnection permits RdmaConnection {
    final String name;
    private final CmId id;
    final ConnectionResources res;
    final QueuePair qp;
    private final ConnectionOptions options;
    final ConnectionFailure failure = new ConnectionFailure();
    final SendQueue sends;
    final ReceivePool receives;
    private final CompletionPoller poller;
    private volatile Runnable onClose = () -> {};
    private volatile byte[] peerPrivateData = new byte[0];
    private volatile Optional<ConnectionParameters> peerParameters = Optional.empty();
    /** The RFC 7306 agent where both ends run it, else null. */
    final ConnectionAgent agent;

    final ConnectionEnd end;

    /** @param agentTerms what the handshake agreed for the RFC 7306 agent, or null where it is not active */
    EstablishedConnection(
            CmId id,
            ConnectionResources res,
            EventChannel ownedEvents,
            Thread eventThread,
            Handshake.Negotiated agentTerms) {
        this.id = id;
        this.res = res;
        this.qp = res.qp;
        this.options = res.options;
        this.name = "rdma-connection-"
                + id.localAddress().map(EstablishedConnection::format).orElse("?") + "->"
                + id.peerAddress().map(EstablishedConnection::format).orElse("?");
        this.sends = new SendQueue(name, res, failure, this::onPollerThread, this::disconnectOnPoller);
        if (agentTerms != null && res.agentSlots != null) {
            AgentMode mode = options.agent();
            this.agent = new ConnectionAgent(
                    new AgentHook(name, sends, failure, options.timeout(), this),
                    qp,
                    res.agentSlots,
                    options.sendQueueDepth(),
                    options.agentDepth(),
                    agentTerms,
                    mode == AgentMode.ALWAYS || !qp.supportsAtomics(),
                    true);
        } else {
            this.agent = null;
        }
        this.receives = new ReceivePool(name, res, failure, agent);
        this.poller = new CompletionPoller(
                name,
                res.cq,
                ownedEvents != null ? ownedEvents.fd() : -1,
                options.busyPoll().toNanos(),
                new CompletionRouting(name, failure, sends, receives, this::end));
        this.end = new ConnectionEnd(
                name, id, ownedEvents, eventThread, options.timeout(), failure, sends, receives, agent, poller);
    }

    private static String format(InetSocketAddress a) {
        return a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    final boolean onPollerThread() {
        return poller.isPollerThread();
    }

    void start() {
        poller.start();
    }

    /** @return how often this connection's poller has slept on its completion channel (tests of busy polling) */
    long pollerSleeps() {
        return poller.sleeps();
    }

    void onClose(Runnable r) {
        onClose = r;
    }

    /** Runs what the owner (client or server) asked to run once the connection is closed. */
    final void closed() {
        onClose.run();
    }

    CmId id() {
        return id;
    }

    /** {@return the poller thread's name: {@code rdma-connection-<local address>-><peer address>}} */
    public String name() {
        return name;
    }

    /** {@return the protection domain to register or allocate the memory of this connection's requests in} */
    public ProtectionDomain protectionDomain() {
        return res.pd;
    }

    /**
     * The private data the peer sent when the connection was made: on a client, the server's accept private data
     * from the ESTABLISHED event; on a connection accepted by {@link RdmaServer}, the client's from its
     * CONNECT_REQUEST (RPC-over-RDMA's RFC 8797 data, for instance). On InfiniBand/RoCE padded with zeros to the CM
     * message's field size; empty if none or not recorded. A copy.
     *
     * @return a copy; empty if none
     */
    public byte[] peerPrivateData() {
        return peerPrivateData.clone();
    }

    void peerPrivateData(byte[] data) {
        peerPrivateData = data == null ? new byte[0] : data.clone();
    }

    /**
     * On a connection accepted by {@link RdmaServer}: the client's connection parameters from its CONNECT_REQUEST,
     * as this side sees them (rdma_cm swaps them): {@code initiatorDepth} is how many RDMA Reads this side may have
     * outstanding at the client (the client's responder resources; 0: none, the client's device will answer no
     * RDMA Read), {@code responderResources} how many the client may have at this side. Empty on a client.
     *
     * @return the client's parameters, or empty on a client
     */
    public Optional<ConnectionParameters> peerParameters() {
        return peerParameters;
    }

    void peerParameters(ConnectionParameters parameters) {
        peerParameters = Optional.ofNullable(parameters);
    }

    /** {@return the queue pair, for what the futures do not cover (posting on it directly bypasses the futures)} */
    public QueuePair queuePair() {
        return qp;
    }

    /** {@return the name of the device the connection is on} */
    public String deviceName() {
        return qp.deviceName();
    }

    /** {@return this side's address, if the id has one} */
    public Optional<InetSocketAddress> localAddress() {
        return id.localAddress();
    }

    /** {@return the peer's address, if the id has one} */
    public Optional<InetSocketAddress> peerAddress() {
        return id.peerAddress();
    }

    /** {@return the most requests in flight at once (the send queue depth)} */
    public int maxOutstanding() {
        return options.sendQueueDepth();
    }

    /** {@return the size of each receive buffer in bytes: the largest message this side takes} */
    public int receiveBufferSize() {
        return options.receiveBufferSize();
    }

    /**
     * {@return whether the connection can no longer post (closed, disconnected, device removed or queue pair in error)}
     */
    public boolean isFailed() {
        return failure.get() != null;
    }

    /**
     * {@return a future completed when the peer disconnects (or close() has seen its own DISCONNECTED), with the event}
     */
    public CompletableFuture<CmEvent> disconnected() {
        return end.disconnected();
    }

    /**
     * {@return who provides atomics, masked atomics and immediate data on this connection: the device, the agent, or none}
     */
    public ConnectionCapabilities capabilities() {
        ConnectionCapabilities.Provider atomics = agent != null && agent.atomicsByAgent()
                ? ConnectionCapabilities.Provider.AGENT
                : qp.supportsAtomics() ? ConnectionCapabilities.Provider.DEVICE : ConnectionCapabilities.Provider.NONE;
        ConnectionCapabilities.Provider immediate = agent != null
                ? ConnectionCapabilities.Provider.AGENT
                : qp.supportsImmediateData()
                        ? ConnectionCapabilities.Provider.DEVICE
                        : ConnectionCapabilities.Provider.NONE;
        return new ConnectionCapabilities(qp.deviceName(), atomics, atomics, immediate, agent != null);
    }

    /** {@return what the RFC 7306 agent has done, where it is active on this connection} */
    public Optional<AgentStatistics> agentStatistics() {
        return agent == null ? Optional.empty() : Optional.of(agent.statistics());
    }

    /** A CM event of this connection's id (from the poller on a client, from the server's event thread). */
    void handleCmEvent(CmEvent e) {
        end.handleCmEvent(e);
    }

    /** How the connection ends (the RFC 7306 agent's hook ends it through this). */
    ConnectionEnd end() {
        return end;
    }

    private void disconnectQuietly() {
        end.disconnectQuietly();
    }

    /** Disconnects from the poller thread: a thread whose post the kernel refused would be refused this too. */
    private void disconnectOnPoller() {
        poller.execute(this::disconnectQuietly);
    }

    @Override
    public String toString() {
        return name + " on " + qp.deviceName()
                + (failure.get() != null ? " (" + failure.get().getMessage() + ")" : "");
    }
}
