package org.panamardma.verbs.connection;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicLong;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionChannel;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.FlushScope;
import org.panamardma.verbs.FlushType;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.MemoryWindow;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.RemoteRegion;
import org.panamardma.verbs.ScatterGatherList;
import org.panamardma.verbs.SendChain;
import org.panamardma.verbs.ChainPostException;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WcOpcode;
import org.panamardma.verbs.WcStatus;
import org.panamardma.verbs.WorkCompletionException;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.cm.QueuePairOptions;
import org.panamardma.verbs.connection.agent.AgentLink;
import org.panamardma.verbs.connection.agent.AgentMode;
import org.panamardma.verbs.connection.agent.AgentProtocolException;
import org.panamardma.verbs.connection.agent.AgentStatistics;
import org.panamardma.verbs.connection.agent.AgentTerminatedException;
import org.panamardma.verbs.connection.agent.ConnectionAgent;
import org.panamardma.verbs.connection.agent.Handshake;
import org.panamardma.verbs.extensions.RemoteWord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rdma_cm-connected reliable-connected queue pair, with futures: every request is posted
 * {@link SendFlags#SIGNALED} under a fresh wr_id and its {@link CompletableFuture} is completed by the connection's
 * poller thread when the completion arrives.
 *
 * <p><b>Resources.</b> The connection owns, on the device context rdma_cm chose: a protection domain (register the
 * memory you send from, write from, read into with {@link #protectionDomain()}), a completion channel and one
 * completion queue (sends and receives, {@code sendQueueDepth + receiveQueueDepth} entries), the queue pair,
 * {@code receiveQueueDepth} receive buffers of {@code receiveBufferSize} bytes in one memory region (LOCAL_WRITE),
 * and {@code sendQueueDepth} 8-byte slots for atomic results. All go with {@link #close()}.
 *
 * <p><b>Poller.</b> One platform daemon thread per connection ({@code rdma-connection-<local>-><peer>}) polls the CQ
 * dry, arms it, polls again (completions that raced the arming make no event) and waits on the completion channel
 * in slices of {@value CompletionPoller#WAIT_SLICE_MILLIS} ms ({@link CompletionPoller}). Futures complete on that
 * thread: dependent actions that block delay every other completion of the connection; use the {@code ...Async}
 * forms for anything slow.
 *
 * <p><b>Backpressure.</b> At most {@code sendQueueDepth} requests are in flight; a request beyond that blocks the
 * calling thread until a completion frees a slot (it does not fail). On the poller thread itself (a future's
 * callback that sends, as a reply-on-receive server does) it cannot block, since the poller is what frees slots:
 * there the request waits in a queue, in order, and is posted as soon as a completion frees a slot. Receives are not
 * counted: they use the posted buffers.
 *
 * <p><b>Failures.</b> No request method throws (except NullPointerException): a failure to post
 * (UnsupportedOperationException naming the device when it lacks the capability, e.g. atomics on siw;
 * IllegalArgumentException for a range outside the region; RdmaException from the post) fails the returned future.
 * A completion with an error status fails its future with {@link WorkCompletionException} and puts the connection
 * in the failed state: requests flushed by the queue pair ({@code WR_FLUSH_ERR}) and every later request fail with
 * {@link ConnectionClosedException}. So do pending and later requests once the peer disconnects (DISCONNECTED), the
 * device goes (DEVICE_REMOVAL), or {@link #close()} is called. Messages already received stay available to
 * {@link #receive()}.
 *
 * <p><b>RFC 7306 agent.</b> With {@link ConnectionOptions#withAgent} on both ends, a responder-side agent
 * ({@link org.panamardma.verbs.connection.agent}) provides atomics (plain and masked) and immediate data over SENDs
 * where the device lacks them (siw), or everywhere in {@link AgentMode#ALWAYS}: the same methods, the same futures.
 * {@link #capabilities()} says who provides what. Every SEND of such a connection then carries the agent's 4-byte
 * control word (12 with immediate data) before the payload, which {@link #receive()} strips; the receive buffers
 * are that much larger, so the application's messages of {@code receiveBufferSize} still fit.
 */
public final class RdmaConnection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaConnection.class);
    static final int WAIT_SLICE_MILLIS = CompletionPoller.WAIT_SLICE_MILLIS;
    /** wr_ids of receives have the top bit set and the buffer index below. */
    private static final long RECEIVE_BIT = 1L << 63;

    /**
     * SEND: a plain SEND, the one request that may go unsignaled (ConnectionOptions.sendSignalInterval). FRAMED: a
     * request with an application slot of the agent's memory (its header). RESERVED: the agent's own, outside the
     * permits (its send-queue entries are reserved, ConnectionAgent).
     */
    private enum Kind { VOID, SEND, ATOMIC, FRAMED, RESERVED }

    /** @param seq the request's place in posting order (see {@link #postOrder}) */
    private record Pending(CompletableFuture<Object> future, Kind kind, int slot, long seq) {}

    /** A SEND posted unsignaled: done when a later signaled request of the send queue completes. */
    private record Unsignaled(long seq, long wrId) {}

    /**
     * A message taken from receive buffer {@code index}: {@code length} bytes from {@code payloadOffset}, with its
     * immediate value and the rkey a SEND with invalidate invalidated, where it had them.
     */
    private record Arrived(int index, int payloadOffset, int length, boolean hasImmediate, int immediate,
                           boolean hasInvalidated, int invalidatedRkey) {}

    /** What the connection owns, made on the id's context before connect/accept (receives posted). */
    static final class Resources {
        final ConnectionOptions options;
        ProtectionDomain pd;
        CompletionChannel channel;
        CompletionQueue cq;
        MemoryRegion receiveBuffers;
        MemoryRegion atomicResults;
        /** The agent's send memory (ConnectionAgent), where the options offer the agent; else null. */
        MemoryRegion agentSlots;
        QueuePair qp;
        /** Receive buffers and their size: the application's, plus the agent's (ConnectionAgent) where offered. */
        final int receiveCount;
        final int receiveStride;

        Resources(ConnectionOptions options) {
            this.options = options;
            boolean agent = options.agent() != AgentMode.OFF;
            this.receiveCount = options.receiveQueueDepth()
                    + (agent ? ConnectionAgent.extraReceives(options.agentDepth()) : 0);
            this.receiveStride = agent ? ConnectionAgent.receiveBufferSize(options.receiveBufferSize())
                    : options.receiveBufferSize();
        }

        /** The {@link org.panamardma.verbs.cm.CmConnector.QueuePairFactory}: everything, then the receives. */
        QueuePair create(CmId id) throws RdmaException {
            Context ctx = id.context();
            boolean agent = options.agent() != AgentMode.OFF;
            // the agent's own SENDs have send-queue entries of their own (ConnectionAgent); so has the WRITE that
            // precedes the Immediate Data message of a WRITE with immediate data
            int sendDepth = options.sendQueueDepth() + (agent
                    ? options.sendQueueDepth() + ConnectionAgent.extraSendQueueDepth(options.agentDepth()) : 0);
            pd = ctx.allocateProtectionDomain();
            channel = ctx.createCompletionChannel();
            cq = ctx.createCompletionQueue(sendDepth + receiveCount, channel);
            receiveBuffers = pd.allocate((long) receiveCount * receiveStride, Set.of(Access.LOCAL_WRITE));
            atomicResults = pd.allocate(8L * options.sendQueueDepth(), Set.of(Access.LOCAL_WRITE));
            if (agent) {
                agentSlots = pd.allocate(ConnectionAgent.slotMemoryBytes(options.sendQueueDepth(),
                        options.agentDepth()), Set.of());
            }
            // two SGEs where the agent may frame a SEND: its header, then the application's bytes
            qp = id.createQueuePair(pd, QueuePairOptions.of(cq).withQueueDepths(sendDepth, receiveCount)
                    .withSge(agent ? 2 : 1, 1));
            for (int i = 0; i < receiveCount; i++) {
                postReceive(i);
            }
            return qp;
        }

        void postReceive(int index) throws RdmaException {
            qp.postReceive(RECEIVE_BIT | index, receiveBuffers, (long) index * receiveStride, receiveStride);
        }

        /** Closes what was made (the id, with the queue pair, is closed before). */
        void close() {
            for (AutoCloseable r : new AutoCloseable[] {receiveBuffers, atomicResults, agentSlots, cq, channel, pd}) {
                if (r != null) {
                    try {
                        r.close();
                    } catch (Exception e) {
                        LOG.debug("closing " + r, e);
                    }
                }
            }
        }
    }

    private final String name;
    private final CmId id;
    /** The client's own event channel (polled by the poller for this id's events), or null on a server. */
    private final EventChannel ownedEvents;
    /** On a server: the thread that delivers this id's CM events (close() must not wait for itself). */
    private final Thread eventThread;
    private final Resources res;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final ConnectionOptions options;
    private final Semaphore permits;
    /** Held while a request is numbered and posted, so that {@link Pending#seq} is the send queue's order. */
    private final Object postOrder = new Object();
    /** Guarded by postOrder. */
    private long postSeq;
    /** Guarded by postOrder: SENDs posted unsignaled since the last signaled request. */
    private int unsignaledRun;
    /** Unsignaled SENDs in posting order: added under postOrder, taken by the poller. */
    private final ConcurrentLinkedQueue<Unsignaled> unsignaled = new ConcurrentLinkedQueue<>();
    /** Taken receive buffers waiting to be posted again, by {@link ConnectionOptions#receiveBatch()}. */
    private final Object repostLock = new Object();
    private final long[] repostIds;
    private final long[] repostOffsets;
    /** Guarded by repostLock. */
    private int reposts;
    private final ConcurrentLinkedQueue<Integer> freeSlots = new ConcurrentLinkedQueue<>();
    /** Requests made on the poller thread while no slot was free, oldest first (see Backpressure). */
    private final ConcurrentLinkedQueue<Deferred> deferred = new ConcurrentLinkedQueue<>();
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong nextWrId = new AtomicLong();
    private final Object receiveLock = new Object();
    private final ArrayDeque<Arrived> arrived = new ArrayDeque<>();
    private final ArrayDeque<CompletableFuture<Received>> waiting = new ArrayDeque<>();
    private final CompletableFuture<CmEvent> disconnected = new CompletableFuture<>();
    private final AtomicBoolean closeCalled = new AtomicBoolean();
    private final CompletionPoller poller;
    private volatile ConnectionClosedException failure;
    private volatile Runnable onClose = () -> {};
    private volatile byte[] peerPrivateData = new byte[0];
    private volatile Optional<ConnectionParameters> peerParameters = Optional.empty();
    /** The RFC 7306 agent where both ends run it, else null. */
    private final ConnectionAgent agent;
    /** A reply's WRITEs and SEND posted together, and their wr_ids ({@link #writesThenSend}): under postOrder only. */
    private final SendChain sendChain;
    private final long[] chainIds;
    /** The header and payload of a SEND the agent frames: used under postOrder only. */
    private final ScatterGatherList framed;

    RdmaConnection(CmId id, Resources res, EventChannel ownedEvents, Thread eventThread) {
        this(id, res, ownedEvents, eventThread, null);
    }

    /** @param agentTerms what the handshake agreed for the RFC 7306 agent, or null where it is not active */
    RdmaConnection(CmId id, Resources res, EventChannel ownedEvents, Thread eventThread,
                   Handshake.Negotiated agentTerms) {
        this.id = id;
        this.res = res;
        this.ownedEvents = ownedEvents;
        this.eventThread = eventThread;
        this.qp = res.qp;
        this.cq = res.cq;
        this.options = res.options;
        this.permits = new Semaphore(options.sendQueueDepth());
        this.sendChain = new SendChain(Math.max(1, Math.min(options.sendQueueDepth(), SendChain.MAX_REQUESTS)));
        this.chainIds = new long[sendChain.capacity()];
        this.repostIds = new long[options.receiveBatch()];
        this.repostOffsets = new long[options.receiveBatch()];
        for (int i = 0; i < options.sendQueueDepth(); i++) {
            freeSlots.add(i);
        }
        this.name = "rdma-connection-" + id.localAddress().map(RdmaConnection::format).orElse("?") + "->"
                + id.peerAddress().map(RdmaConnection::format).orElse("?");
        if (agentTerms != null && res.agentSlots != null) {
            AgentMode mode = options.agent();
            this.agent = new ConnectionAgent(new Link(), qp, res.agentSlots, options.sendQueueDepth(),
                    options.agentDepth(), agentTerms, mode == AgentMode.ALWAYS || !qp.supportsAtomics(), true);
            this.framed = new ScatterGatherList(2);
        } else {
            this.agent = null;
            this.framed = null;
        }
        this.poller = new CompletionPoller(name, cq, ownedEvents != null, options.busyPoll().toNanos(),
                new CompletionPoller.Handler() {
            @Override
            public void completed(WorkCompletions wc, int i) {
                RdmaConnection.this.completed(wc, i);
            }

            @Override
            public void drained() {
                postReposts(); // receives first: a deferred send may be answered at once
                postDeferred();
            }

            @Override
            public void pollCmEvents() throws RdmaException {
                RdmaConnection.this.pollCmEvents();
            }

            @Override
            public void failed(Throwable t) {
                LOG.warn(name + ": poller failed", t);
                markFailed(new ConnectionClosedException(name + ": completion poller failed: " + t, t));
                failAllPending();
            }
        });
    }

    private static String format(InetSocketAddress a) {
        return a.getAddress().getHostAddress() + ":" + a.getPort();
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

    CmId id() {
        return id;
    }

    // ---------------------------------------------------------------------------------------------------- info

    /** The poller thread's name: {@code rdma-connection-<local address>-><peer address>}. */
    public String name() {
        return name;
    }

    /** Register or allocate the memory for this connection's requests here. */
    public ProtectionDomain protectionDomain() {
        return res.pd;
    }

    /**
     * The private data the peer sent when the connection was made: on a client, the server's accept private data
     * from the ESTABLISHED event; on a connection accepted by {@link RdmaServer}, the client's from its
     * CONNECT_REQUEST (RPC-over-RDMA's RFC 8797 data, for instance). On InfiniBand/RoCE padded with zeros to the CM
     * message's field size; empty if none or not recorded. A copy.
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
     */
    public Optional<ConnectionParameters> peerParameters() {
        return peerParameters;
    }

    void peerParameters(ConnectionParameters parameters) {
        peerParameters = Optional.ofNullable(parameters);
    }

    /** The queue pair, for what the futures do not cover (posting on it directly bypasses the futures). */
    public QueuePair queuePair() {
        return qp;
    }

    public String deviceName() {
        return qp.deviceName();
    }

    public Optional<InetSocketAddress> localAddress() {
        return id.localAddress();
    }

    public Optional<InetSocketAddress> peerAddress() {
        return id.peerAddress();
    }

    /** The most requests in flight at once (the send queue depth). */
    public int maxOutstanding() {
        return options.sendQueueDepth();
    }

    /** The size of each receive buffer: the largest message this side takes. */
    public int receiveBufferSize() {
        return options.receiveBufferSize();
    }

    /** Whether the connection can no longer post (closed, disconnected, device removed or queue pair in error). */
    public boolean isFailed() {
        return failure != null;
    }

    /** Completes when the peer disconnects (or close() has seen its own DISCONNECTED): with the event. */
    public CompletableFuture<CmEvent> disconnected() {
        return disconnected.copy();
    }

    /** Who provides atomics, masked atomics and immediate data on this connection: the device, the agent, or none. */
    public ConnectionCapabilities capabilities() {
        ConnectionCapabilities.Provider atomics = agent != null && agent.atomicsByAgent()
                ? ConnectionCapabilities.Provider.AGENT
                : qp.supportsAtomics() ? ConnectionCapabilities.Provider.DEVICE : ConnectionCapabilities.Provider.NONE;
        ConnectionCapabilities.Provider immediate = agent != null ? ConnectionCapabilities.Provider.AGENT
                : qp.supportsImmediateData() ? ConnectionCapabilities.Provider.DEVICE
                : ConnectionCapabilities.Provider.NONE;
        return new ConnectionCapabilities(qp.deviceName(), atomics, atomics, immediate, agent != null);
    }

    /** What the RFC 7306 agent has done, where it is active on this connection. */
    public Optional<AgentStatistics> agentStatistics() {
        return agent == null ? Optional.empty() : Optional.of(agent.statistics());
    }

    // ------------------------------------------------------------------------------------------------ requests

    /** SEND of {@code length} bytes of {@code mr} at {@code offset}: consumes one receive at the peer. */
    public CompletableFuture<Void> send(MemoryRegion mr, long offset, int length) {
        if (agent != null) {
            return submit(Kind.SEND, (wr, slot, flags) -> postFramed(wr, agent.sendHeaderOffset(),
                    ConnectionAgent.SEND_HEADER, mr, offset, length, flags));
        }
        return submit(Kind.SEND, (wr, slot, flags) -> qp.postSend(wr, mr, offset, length, flags));
    }

    /**
     * SEND with immediate data: the peer's {@link #receive()} gets the bytes and the value. On iWARP only with the
     * RFC 7306 agent, which then carries the value in the SEND's header (on every device where it is active).
     */
    public CompletableFuture<Void> sendWithImmediate(MemoryRegion mr, long offset, int length, int immediate) {
        if (agent != null) {
            return submit(Kind.FRAMED, (wr, slot, flags) -> postFramed(wr, agent.appSlotOffset(slot),
                    agent.sendWithImmediateHeader(slot, immediate), mr, offset, length, SendFlags.SIGNALED));
        }
        if (!qp.supportsImmediateData() && options.agent() != AgentMode.OFF) {
            return CompletableFuture.failedFuture(agentNotActive("immediate data"));
        }
        return submit(Kind.VOID, (wr, slot, flags) ->
                qp.postSendWithImmediate(wr, mr, offset, length, immediate, SendFlags.SIGNALED));
    }

    /** One RDMA WRITE of a reply ({@link #writesThenSend}): {@code length} bytes of {@code mr} at {@code offset}. */
    public record ChainedWrite(MemoryRegion mr, long offset, int length, long remoteAddress, int rkey) {
        public ChainedWrite {
            Objects.requireNonNull(mr, "mr");
            if (length <= 0) {
                throw new IllegalArgumentException("a chained WRITE moves at least one byte: " + length);
            }
        }
    }

    /**
     * RDMA WRITEs and then a SEND, as an RPC-over-RDMA server answers a call whose results go into the client's
     * Write and Reply chunks (the kernel's svc_rdma_sendto: the Write WRs chained before the reply's Send, one
     * ib_post_send). The WRITEs are unsignaled and go to the device with the SEND in one post
     * ({@link QueuePair#postChain}: one call into the provider, one doorbell), so their completions cost nothing:
     * the SEND's completion tells that they are done too (a reliable connection completes a send queue in order),
     * and the peer sees their data before the SEND's message (RC ordering).
     *
     * <p>The returned future completes when the SEND completes; it fails, with the first failure, once every request
     * of the chain that reached the device has completed or been flushed (a WRITE in error ends the connection and
     * flushes the SEND), or when the connection ends: either way the device no longer reads the chain's memory when
     * it is done. A chain longer than the send queue (or than {@link SendChain#MAX_REQUESTS}) goes in parts of one
     * post each, the last WRITE of every part but the final one signaled, so that its permits come back. If the
     * provider refuses a request in the middle of a post, those before it are on the send queue: the connection is
     * then ended, which flushes them. On the poller thread, or with the RFC 7306 agent active (whose SEND carries
     * its header), the requests are posted one by one, signaled.
     */
    public CompletableFuture<Void> writesThenSend(List<ChainedWrite> writes, MemoryRegion mr, long offset,
                                                  int length) {
        if (writes.isEmpty()) {
            return send(mr, offset, length);
        }
        ChainOutcome outcome = new ChainOutcome(writes.size() + 1);
        if (poller.isPollerThread() || agent != null) {
            // the poller must not wait for permits: every request goes through the ordered deferred queue
            for (ChainedWrite w : writes) {
                outcome.track(write(w.mr(), w.offset(), w.length(), w.remoteAddress(), w.rkey()));
            }
            outcome.track(send(mr, offset, length));
            return outcome.future;
        }
        int part = sendChain.capacity();
        int from = 0;
        while (from < writes.size()) {
            boolean last = writes.size() - from < part; // room for the SEND after the remaining WRITEs
            int to = Math.min(writes.size(), from + part);
            int requests = last ? to - from + 1 : to - from;
            ConnectionClosedException c = acquire(requests);
            if (c != null) {
                outcome.abandon(writes.size() + 1 - from, c);
                return outcome.future;
            }
            synchronized (postOrder) {
                postPart(outcome, writes, from, to, last, mr, offset, length);
            }
            if (last) {
                return outcome.future;
            }
            from = to;
        }
        // every part was full: the SEND goes alone
        outcome.track(send(mr, offset, length));
        return outcome.future;
    }

    /**
     * Settles a chain's future once every one of its requests is settled: completed if all completed, else failed
     * with the first failure. Why not at the first failure: a request of the chain may still be on the send queue
     * then (posted before a refused one, say), reading memory the caller gives back on the failure.
     */
    private static final class ChainOutcome {
        final CompletableFuture<Void> future = new CompletableFuture<>();
        private final AtomicInteger unsettled;
        private final AtomicReference<Throwable> first = new AtomicReference<>();

        ChainOutcome(int requests) {
            this.unsettled = new AtomicInteger(requests);
        }

        void track(CompletableFuture<?> request) {
            request.whenComplete((v, t) -> settle(1, t));
        }

        /** {@code requests} of the chain will never be posted, because of {@code why}. */
        void abandon(int requests, Throwable why) {
            settle(requests, why);
        }

        private void settle(int requests, Throwable t) {
            if (t != null) {
                first.compareAndSet(null, t);
            }
            if (unsettled.addAndGet(-requests) == 0) {
                Throwable f = first.get();
                if (f == null) {
                    future.complete(null);
                } else {
                    future.completeExceptionally(f);
                }
            }
        }
    }

    /**
     * Posts WRITEs {@code from}..{@code to} of a chain, and its SEND if {@code last}, as one
     * {@link QueuePair#postChain}; holding {@link #postOrder} and their permits. Each request is pending under its own
     * wr_id before the post, as in {@link #postAcquired}: an error completion of an unsignaled WRITE names it.
     */
    private void postPart(ChainOutcome outcome, List<ChainedWrite> writes, int from, int to, boolean last,
                          MemoryRegion mr, long offset, int length) {
        int n = to - from + (last ? 1 : 0);
        long[] ids = chainIds;
        SendChain chain = sendChain.clear();
        Throwable refused = failure;
        for (int k = 0; k < n; k++) {
            boolean send = last && k == n - 1;
            boolean signaled = send || (!last && k == n - 1);
            long wrId = nextWrId.incrementAndGet();
            long seq = ++postSeq;
            ids[k] = wrId;
            CompletableFuture<Object> f = new CompletableFuture<>();
            outcome.track(f);
            pending.put(wrId, new Pending(f, send ? Kind.SEND : Kind.VOID, -1, seq));
            if (!signaled) {
                unsignaled.add(new Unsignaled(seq, wrId)); // before the post: its error completion may come at once
            }
            if (refused != null) {
                continue;
            }
            try {
                if (send) {
                    chain.send(wrId, mr, offset, length, SendFlags.SIGNALED);
                } else {
                    ChainedWrite w = writes.get(from + k);
                    chain.write(wrId, w.mr(), w.offset(), w.length(), w.remoteAddress(), w.rkey(),
                            signaled ? SendFlags.SIGNALED : SendFlags.NONE);
                }
            } catch (RuntimeException e) {
                refused = e; // a range outside its region, a region closed: nothing of the part is posted
            }
        }
        if (refused == null) {
            try {
                qp.postChain(chain);
                unsignaledRun = 0; // the part ends with a signaled request
                return;
            } catch (ChainPostException e) {
                // the first ones are on the send queue, unsignaled: only the queue pair's flush completes them now
                int posted = e.postedRequests();
                for (int k = posted; k < n; k++) {
                    fail(ids[k], e);
                }
                if (posted > 0) {
                    endAfterPartialPost(e);
                }
                return;
            } catch (Throwable t) {
                refused = t; // refused before anything was posted
            } finally {
                chain.clear();
            }
        }
        for (int k = 0; k < n; k++) {
            fail(ids[k], refused);
        }
    }

    /**
     * A chain's post was refused after some of its requests went to the send queue: they are unsignaled, and the
     * request meant to tell of their completion was not posted. The connection cannot go on in order; it is marked
     * failed and disconnected, which moves the queue pair to the error state and flushes them (a flushed request
     * completes whether signaled or not: rdma-core and the kernel's rxe, flush_send_queue), settling their futures.
     */
    private void endAfterPartialPost(ChainPostException e) {
        LOG.warn("{}: {}; ending the connection to flush the part posted", name, e.getMessage());
        markFailed(new ConnectionClosedException(name + ": a chained post failed part-way: " + e.getMessage(), e));
        try {
            id.disconnect();
        } catch (RdmaException | RuntimeException ignored) {
            // already disconnected or closed: the queue pair is flushed either way
        }
    }

    /**
     * Waits for {@code n} permits at once (a chain's requests take theirs together, so that two chains cannot each
     * hold part of the send queue and wait for the rest), but not past the connection's end.
     *
     * @return null with the permits held, or why the connection cannot take requests
     */
    private ConnectionClosedException acquire(int n) {
        try {
            while (!permits.tryAcquire(n, WAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS)) {
                ConnectionClosedException c = failure;
                if (c != null) {
                    return c;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ConnectionClosedException(name + ": interrupted waiting for the send queue");
        }
        ConnectionClosedException c = failure;
        if (c != null) {
            permits.release(n);
        }
        return c;
    }

    /**
     * RDMA WRITE with immediate data: {@code length} bytes of {@code mr} at {@code offset} to the peer's {@code
     * remoteAddress}, then the peer's {@link #receive()} gets an empty message with the value, once the bytes are
     * there. Through the RFC 7306 agent (where active; iWARP has it no other way) this is RFC 7306 section 6's
     * composition, the WRITE then an Immediate Data message, posted together; the future completes with the
     * second (a failed WRITE fails it, the Immediate Data message flushed behind).
     */
    public CompletableFuture<Void> writeWithImmediate(MemoryRegion mr, long offset, int length, long remoteAddress,
                                                      int rkey, int immediate) {
        if (agent != null) {
            return submit(Kind.FRAMED, (wr, slot, flags) -> {
                // the WRITE unsignaled under the same wr_id: an error completion of it fails this request (and
                // marks the connection failed); the Immediate Data message's completion completes it
                qp.postWrite(wr, mr, offset, length, remoteAddress, rkey, 0);
                int n = agent.immediateData(slot, immediate);
                qp.postSend(wr, agent.slotMemory(), agent.appSlotOffset(slot), n, SendFlags.SIGNALED);
            });
        }
        if (!qp.supportsImmediateData() && options.agent() != AgentMode.OFF) {
            return CompletableFuture.failedFuture(agentNotActive("immediate data"));
        }
        return submit(Kind.VOID, (wr, slot, flags) -> qp.postWriteWithImmediate(wr, mr, offset, length,
                remoteAddress, rkey, immediate, SendFlags.SIGNALED));
    }

    /** Posts the agent's header at {@code headerOffset} of its memory and the application's bytes as one SEND. */
    private void postFramed(long wrId, long headerOffset, int headerLength, MemoryRegion mr, long offset, int length,
                            int flags) throws RdmaException {
        framed.clear().add(agent.slotMemory(), headerOffset, headerLength);
        if (length > 0) {
            framed.add(mr, offset, length);
        }
        qp.postSend(wrId, framed, flags);
    }

    /** The refusal of an operation only the agent could provide here, before anything is posted. */
    private UnsupportedOperationException agentNotActive(String what) {
        return new UnsupportedOperationException(qp.deviceName() + " has no " + what + " (" + (what.equals("atomics")
                ? "atomic_cap " + qp.protectionDomain().context().attributes().atomicCapability()
                : "iWARP's RDMAP has none") + ") and the RFC 7306 agent is not active on " + name
                + ": the peer did not offer it in the private data (enable ConnectionOptions.withAgent on both ends)");
    }

    /**
     * The next message the peer SENT (in arrival order), copied out of its receive buffer; the buffer is posted
     * again before the future completes, or with {@link ConnectionOptions#receiveBatch()} above 1 queued to be
     * posted with the next batch (at the latest when the poller has drained the CQ). Fails with {@link ConnectionClosedException} once the connection has
     * failed and every message already received has been taken.
     */
    public CompletableFuture<Received> receive() {
        Arrived a;
        CompletableFuture<Received> f;
        synchronized (receiveLock) {
            a = arrived.poll();
            if (a == null) {
                f = new CompletableFuture<>();
                ConnectionClosedException c = failure;
                if (c != null) {
                    f.completeExceptionally(c);
                } else {
                    waiting.add(f);
                }
                return f;
            }
        }
        f = new CompletableFuture<>();
        deliver(f, a);
        return f;
    }

    /** RDMA WRITE of {@code length} bytes of {@code mr} at {@code offset} to the peer's {@code remoteAddress}. */
    public CompletableFuture<Void> write(MemoryRegion mr, long offset, int length, long remoteAddress, int rkey) {
        return submit(Kind.VOID, (wr, slot, flags) -> qp.postWrite(wr, mr, offset, length, remoteAddress, rkey,
                SendFlags.SIGNALED));
    }

    /**
     * RDMA WRITE of {@code length} bytes to the start of {@code remote}.
     *
     * @throws IndexOutOfBoundsException if {@code length} bytes do not fit in {@code remote}: refused here, where the
     *         peer's device would fail the WRITE with a remote access error and the connection with it
     */
    public CompletableFuture<Void> write(MemoryRegion mr, long offset, int length, RemoteRegion remote) {
        RemoteRegion target = remote.slice(0, length);
        return write(mr, offset, length, target.address(), target.rkey());
    }

    /**
     * RDMA READ of {@code length} bytes at the peer's {@code remoteAddress} into {@code mr} at {@code offset}. With
     * the agent providing atomics, a READ waits until the agent atomics posted before it have their responses, so
     * that it reads what they wrote (RFC 7306 section 7, "Atomic | RDMA Read").
     */
    public CompletableFuture<Void> read(MemoryRegion mr, long offset, int length, long remoteAddress, int rkey) {
        if (agent != null) {
            return agent.orderedRead(() -> submit(Kind.VOID, (wr, slot, flags) -> qp.postRead(wr, mr, offset, length,
                    remoteAddress, rkey, SendFlags.SIGNALED)));
        }
        return submit(Kind.VOID, (wr, slot, flags) -> qp.postRead(wr, mr, offset, length, remoteAddress, rkey,
                SendFlags.SIGNALED));
    }

    /**
     * A zero-length RDMA READ from the peer (key 0, address 0): {@link org.panamardma.verbs.cm.StreamStartProbe}'s
     * probe, answered by the peer's device without touching memory.
     */
    CompletableFuture<Void> readNothing() {
        return submit(Kind.VOID, (wr, slot, flags) -> qp.postRead(wr, res.atomicResults, 0, 0, 0L, 0, SendFlags.SIGNALED));
    }

    /**
     * RDMA READ of {@code length} bytes from the start of {@code remote}.
     *
     * @throws IndexOutOfBoundsException if {@code remote} is shorter than {@code length} bytes (refused here, before
     *         the peer's device refuses it and fails the connection)
     */
    public CompletableFuture<Void> read(MemoryRegion mr, long offset, int length, RemoteRegion remote) {
        RemoteRegion source = remote.slice(0, length);
        return read(mr, offset, length, source.address(), source.rkey());
    }

    /**
     * ATOMIC FETCH AND ADD on the peer's 8-byte aligned word: completes with the word's previous value. By the device,
     * or by the RFC 7306 agent ({@link #capabilities()}).
     */
    public CompletableFuture<Long> fetchAdd(long remoteAddress, int rkey, long add) {
        if (agent != null && agent.atomicsByAgent()) {
            return agent.fetchAdd(remoteAddress, rkey, add, 0L);
        }
        if (!qp.supportsAtomics() && options.agent() != AgentMode.OFF) {
            return CompletableFuture.failedFuture(agentNotActive("atomics"));
        }
        return submit(Kind.ATOMIC, (wr, slot, flags) -> qp.postFetchAdd(wr, res.atomicResults, 8L * slot, remoteAddress,
                rkey, add, SendFlags.SIGNALED));
    }

    /**
     * ATOMIC COMPARE AND SWAP on the peer's 8-byte aligned word: completes with the word's previous value. By the
     * device, or by the RFC 7306 agent ({@link #capabilities()}).
     */
    public CompletableFuture<Long> compareSwap(long remoteAddress, int rkey, long compare, long swap) {
        if (agent != null && agent.atomicsByAgent()) {
            return agent.compareSwap(remoteAddress, rkey, compare, -1L, swap, -1L);
        }
        if (!qp.supportsAtomics() && options.agent() != AgentMode.OFF) {
            return CompletableFuture.failedFuture(agentNotActive("atomics"));
        }
        return submit(Kind.ATOMIC, (wr, slot, flags) -> qp.postCompareSwap(wr, res.atomicResults, 8L * slot, remoteAddress,
                rkey, compare, swap, SendFlags.SIGNALED));
    }

    /**
     * RFC 7306 section 5.1.1's masked FetchAdd: the word is added to field by field, a set bit of {@code addMask}
     * marking each field's most significant bit (0: a plain FetchAdd). Completes with the word's previous value. By
     * the agent in one request; by a device's atomics as compare-and-swap loops ({@link
     * org.panamardma.verbs.extensions.MaskedAtomics}), each lost race costing a round trip more.
     */
    public CompletableFuture<Long> maskedFetchAdd(long remoteAddress, int rkey, long add, long addMask) {
        if (agent != null && agent.atomicsByAgent()) {
            return agent.fetchAdd(remoteAddress, rkey, add, addMask);
        }
        return MaskedAtomicLoop.fetchAdd(this, remoteAddress, rkey, add, addMask);
    }

    /**
     * RFC 7306 section 5.1.2's masked CmpSwap: if the bits of {@code compareMask} equal {@code compare}'s, the bits
     * of {@code swapMask} become {@code swap}'s. Completes with the word's previous value. By the agent in one
     * request; by a device's atomics as compare-and-swap loops.
     */
    public CompletableFuture<Long> maskedCompareSwap(long remoteAddress, int rkey, long compare, long compareMask,
                                                     long swap, long swapMask) {
        if (agent != null && agent.atomicsByAgent()) {
            return agent.compareSwap(remoteAddress, rkey, compare, compareMask, swap, swapMask);
        }
        return MaskedAtomicLoop.compareSwap(this, remoteAddress, rkey, compare, compareMask, swap, swapMask);
    }

    /**
     * The peer's 8-byte word {@code word} as a {@link RemoteWord} over {@link #compareSwap}, for the synchronous
     * {@link org.panamardma.verbs.extensions.MaskedAtomics}: each compare-and-swap waits for its answer up to the
     * connection's timeout. Usable from any thread but the poller's.
     */
    public RemoteWord remoteWord(RemoteRegion word) {
        if (word.length() < 8 || (word.address() & 7) != 0) {
            throw new IllegalArgumentException("a remote word is 8 bytes at an 8-byte aligned address: " + word);
        }
        return (expected, desired) -> {
            try {
                return compareSwap(word.address(), word.rkey(), expected, desired)
                        .get(options.timeout().toNanos(), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RdmaException r ? r
                        : new RdmaException(name + ": CmpSwap on " + word + ": " + e.getCause());
            } catch (TimeoutException e) {
                throw new RdmaException(name + ": no answer to a CmpSwap on " + word + " within "
                        + options.timeout());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RdmaException(name + ": interrupted waiting for a CmpSwap on " + word);
            }
        };
    }

    /**
     * Binds the type 2 window {@code mw} under {@code newRkey} to {@code length} bytes of {@code mr} at
     * {@code offset} with {@code access} ({@link QueuePair#postBindMemoryWindow}): completes when the bind has
     * executed; requests made after this call execute after it. The window's key is {@code newRkey} once this
     * returns (unless the future failed at once).
     */
    public CompletableFuture<Void> bindMemoryWindow(MemoryWindow mw, int newRkey, MemoryRegion mr, long offset,
                                                    long length, Set<Access> access) {
        return submit(Kind.VOID, (wr, slot, flags) -> qp.postBindMemoryWindow(wr, mw, newRkey, mr, offset, length,
                access, SendFlags.SIGNALED));
    }

    /**
     * Invalidates the bound window {@code mw} ({@link QueuePair#postInvalidate}): completes when the invalidation has
     * executed, after which the peer's accesses with the window's key fail.
     */
    public CompletableFuture<Void> invalidate(MemoryWindow mw) {
        return submit(Kind.VOID, (wr, slot, flags) -> qp.postInvalidate(wr, mw, SendFlags.SIGNALED));
    }

    /** RDMA FLUSH (draft-talpey-rdma-commit) of the peer's range or whole region. */
    public CompletableFuture<Void> flush(long remoteAddress, int rkey, long length, FlushType type, FlushScope scope) {
        return submit(Kind.VOID, (wr, slot, flags) -> qp.postFlush(wr, remoteAddress, rkey, length, type, scope,
                SendFlags.SIGNALED));
    }

    /** RDMA ATOMIC WRITE (draft-talpey-rdma-commit) of a 64-bit value to the peer's 8-byte aligned word. */
    public CompletableFuture<Void> atomicWrite(long remoteAddress, int rkey, long value) {
        return submit(Kind.VOID, (wr, slot, flags) -> qp.postAtomicWrite(wr, remoteAddress, rkey, value,
                SendFlags.SIGNALED));
    }

    @FunctionalInterface
    private interface Post {
        /** @param flags SIGNALED, or 0 for a SEND left unsignaled (other requests post SIGNALED whatever) */
        void post(long wrId, int slot, int flags) throws RdmaException;
    }

    private record Deferred(CompletableFuture<Object> future, Kind kind, Post post) {}

    @SuppressWarnings("unchecked")
    private <T> CompletableFuture<T> submit(Kind kind, Post post) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        ConnectionClosedException c = failure;
        if (c != null) {
            f.completeExceptionally(c);
            return (CompletableFuture<T>) (CompletableFuture<?>) f;
        }
        if (poller.isPollerThread()) {
            // the poller frees the slots, so it must not wait for one: queue behind earlier deferred requests
            if (!deferred.isEmpty() || !permits.tryAcquire()) {
                deferred.add(new Deferred(f, kind, post));
                return (CompletableFuture<T>) (CompletableFuture<?>) f;
            }
            postAcquired(f, kind, post);
            return (CompletableFuture<T>) (CompletableFuture<?>) f;
        }
        try {
            // backpressure: wait for a free slot, but not past the connection's end
            while (!permits.tryAcquire(WAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS)) {
                c = failure;
                if (c != null) {
                    f.completeExceptionally(c);
                    return (CompletableFuture<T>) (CompletableFuture<?>) f;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            f.completeExceptionally(e);
            return (CompletableFuture<T>) (CompletableFuture<?>) f;
        }
        postAcquired(f, kind, post);
        return (CompletableFuture<T>) (CompletableFuture<?>) f;
    }

    /** Posts a request that holds a permit: a slot for its result, a wr_id, the post (or its failure). */
    private void postAcquired(CompletableFuture<Object> f, Kind kind, Post post) {
        ConnectionClosedException c;
        Integer slot = kind == Kind.ATOMIC || kind == Kind.FRAMED ? freeSlots.poll() : Integer.valueOf(-1);
        if (slot == null) { // cannot happen: a permit guarantees a slot
            permits.release();
            f.completeExceptionally(new IllegalStateException(name + ": no atomic result slot"));
            return;
        }
        long wrId = nextWrId.incrementAndGet();
        // In posting order: the send queue completes its requests in that order (RC), so a signaled completion
        // tells that every request posted before it is done, unsignaled SENDs included.
        synchronized (postOrder) {
            boolean signaled = kind != Kind.SEND || signalNext();
            long seq = ++postSeq;
            pending.put(wrId, new Pending(f, kind, slot, seq));
            if (!signaled) {
                unsignaled.add(new Unsignaled(seq, wrId)); // before the post: its error completion may come at once
            }
            c = failure;
            if (c != null) {
                fail(wrId, c);
                return;
            }
            try {
                post.post(wrId, slot, signaled ? SendFlags.SIGNALED : 0);
                unsignaledRun = signaled ? 0 : unsignaledRun + 1;
            } catch (Throwable t) {
                fail(wrId, t);
            }
        }
    }

    /**
     * Whether the SEND about to be posted must be signaled; holding {@link #postOrder} and the request's permit.
     * Every {@code sendSignalInterval}-th is; so is one that takes the send queue's last free slot or is posted
     * while requests wait for a slot: their permits come back only through a completion, and an unsignaled request
     * makes none (its slot is freed when a later signaled one completes), so the last request before a wait is
     * always signaled and no wait can outlast the requests in flight.
     */
    private boolean signalNext() {
        return unsignaledRun + 1 >= options.sendSignalInterval() || permits.availablePermits() == 0
                || !deferred.isEmpty() || permits.hasQueuedThreads();
    }

    /**
     * The signaled request posted {@code seq}-th completed (successfully if {@code error} is null): so did every
     * unsignaled SEND posted before it. On the poller thread, the FIFO's one consumer.
     */
    private void completeUnsignaledBefore(long seq, Throwable error) {
        Unsignaled u;
        while ((u = unsignaled.peek()) != null && u.seq() < seq) {
            unsignaled.poll();
            Pending q = pending.remove(u.wrId());
            if (q == null) {
                continue; // failed already (its own error completion, or the connection's end)
            }
            release(q);
            if (error == null) {
                q.future.complete(null);
            } else {
                q.future.completeExceptionally(error);
            }
        }
    }

    /** On the poller thread after each drain: posts the deferred requests that completions have made room for. */
    private void postDeferred() {
        while (!deferred.isEmpty()) {
            ConnectionClosedException c = failure;
            if (c != null) {
                failDeferred(c);
                return;
            }
            if (!permits.tryAcquire()) {
                return;
            }
            // taken only now, with the permit held: a failing thread may empty the queue meanwhile
            Deferred d = deferred.poll();
            if (d == null) {
                permits.release();
                return;
            }
            postAcquired(d.future(), d.kind(), d.post());
        }
    }

    private void failDeferred(Throwable t) {
        Deferred d;
        while ((d = deferred.poll()) != null) {
            d.future().completeExceptionally(t);
        }
    }

    /** Removes request {@code wrId} (if still pending), frees its slot and fails it. */
    private void fail(long wrId, Throwable t) {
        Pending p = pending.remove(wrId);
        if (p != null) {
            release(p);
            p.future.completeExceptionally(t);
        }
    }

    private void release(Pending p) {
        if (p.kind == Kind.RESERVED) {
            return; // the agent's: no permit, no slot
        }
        if (p.slot >= 0) {
            freeSlots.add(p.slot);
        }
        permits.release();
    }

    /** {@link AgentLink#postReserved}: posts at once, in the post order, outside the permits. */
    @SuppressWarnings("unchecked")
    private CompletableFuture<Void> postReserved(AgentLink.ReservedPost post) {
        CompletableFuture<Object> f = new CompletableFuture<>();
        synchronized (postOrder) {
            ConnectionClosedException c = failure;
            if (c != null) {
                f.completeExceptionally(c);
                return (CompletableFuture<Void>) (CompletableFuture<?>) f;
            }
            long wrId = nextWrId.incrementAndGet();
            pending.put(wrId, new Pending(f, Kind.RESERVED, -1, ++postSeq));
            try {
                post.post(wrId);
                unsignaledRun = 0;
            } catch (Throwable t) {
                pending.remove(wrId);
                f.completeExceptionally(t);
            }
        }
        return (CompletableFuture<Void>) (CompletableFuture<?>) f;
    }

    // ---------------------------------------------------------------------------------------------- completions

    private void pollCmEvents() throws RdmaException {
        CmEvent e;
        while (!id.isClosed() && (e = ownedEvents.await(id, Duration.ZERO)) != null) {
            handleCmEvent(e);
        }
    }

    private void completed(WorkCompletions wc, int i) {
        long wrId = wc.wrId(i);
        boolean ok = wc.isSuccess(i);
        if ((wrId & RECEIVE_BIT) != 0) {
            int index = (int) (wrId & Integer.MAX_VALUE);
            if (ok) {
                receivedMessage(index, wc.opcode(i), wc.byteLength(i), wc.hasImmediate(i), wc.immediate(i),
                        wc.hasInvalidated(i), wc.hasInvalidated(i) ? wc.invalidatedRkey(i) : 0);
            } else {
                WorkCompletionException e = new WorkCompletionException(wrId, wc.status(i), wc.vendorError(i),
                        name + " receive buffer " + index);
                if (wc.status(i) != WcStatus.WR_FLUSH_ERR) {
                    LOG.debug("{}", e.getMessage());
                }
                markFailed(new ConnectionClosedException(name + ": queue pair in error: " + e.getMessage(), e));
                failWaitingReceives();
            }
            return;
        }
        Pending p = pending.remove(wrId);
        if (p == null) {
            if (!ok && wc.status(i) != WcStatus.WR_FLUSH_ERR) {
                // a request failed already (close), or an unsignaled WRITE before an Immediate Data message whose
                // request completed: the queue pair is in error either way
                markFailed(new ConnectionClosedException(name + ": queue pair in error after " + new WorkCompletionException(
                        wrId, wc.status(i), wc.vendorError(i), name).getMessage()));
            }
            return;
        }
        long atomicResult = ok && p.kind == Kind.ATOMIC
                ? res.atomicResults.segment().get(JAVA_LONG, 8L * p.slot) : 0L;
        release(p);
        if (ok) {
            completeUnsignaledBefore(p.seq, null);
            p.future.complete(p.kind == Kind.ATOMIC ? (Object) atomicResult : null);
            return;
        }
        WorkCompletionException e = new WorkCompletionException(wrId, wc.status(i), wc.vendorError(i), name);
        if (wc.status(i) == WcStatus.WR_FLUSH_ERR) {
            ConnectionClosedException c = failure;
            ConnectionClosedException flushed = new ConnectionClosedException(
                    (c != null ? c.getMessage() : name + ": queue pair in error") + " (request flushed)", e);
            completeUnsignaledBefore(p.seq, flushed);
            p.future.completeExceptionally(flushed);
        } else {
            markFailed(new ConnectionClosedException(name + ": queue pair in error after " + e.getMessage(), e));
            // an error completes the request that failed; those before it completed (an unsignaled one in error
            // would have made its own completion), those after it are flushed
            completeUnsignaledBefore(p.seq, null);
            p.future.completeExceptionally(e);
            failWaitingReceives();
        }
    }

    /**
     * A receive completed: a WRITE with immediate data leaves its buffer untouched (an empty message with the
     * value); with the agent active the message is framed, and the agent's own are handled and their buffers
     * posted again at once.
     */
    private void receivedMessage(int index, WcOpcode opcode, int length, boolean hasImmediate, int immediate,
                                 boolean hasInvalidated, int invalidatedRkey) {
        if (opcode == WcOpcode.RECV_RDMA_WITH_IMM) {
            received(new Arrived(index, 0, 0, true, immediate, false, 0));
            return;
        }
        if (agent == null) {
            received(new Arrived(index, 0, length, hasImmediate, hasImmediate ? immediate : 0, hasInvalidated,
                    invalidatedRkey));
            return;
        }
        long offset = (long) index * res.receiveStride;
        ConnectionAgent.Delivery d = agent.received(res.receiveBuffers.segment().asSlice(offset, length));
        if (d == null) {
            repost(index, offset);
            return;
        }
        received(new Arrived(index, d.payloadOffset(), length - d.payloadOffset(), d.hasImmediate(), d.immediate(),
                hasInvalidated, invalidatedRkey));
    }

    private void received(Arrived a) {
        CompletableFuture<Received> f;
        synchronized (receiveLock) {
            f = waiting.poll();
            if (f == null) {
                arrived.add(a);
                return;
            }
        }
        deliver(f, a);
    }

    /** Copies the message out, posts its buffer again, completes {@code f}. */
    private void deliver(CompletableFuture<Received> f, Arrived a) {
        long offset = (long) a.index * res.receiveStride;
        byte[] data = res.receiveBuffers.segment().asSlice(offset + a.payloadOffset, a.length).toArray(JAVA_BYTE);
        repost(a.index, offset);
        f.complete(new Received(data, a.hasImmediate, a.immediate, a.hasInvalidated, a.invalidatedRkey));
    }

    /** Queues a taken receive buffer to be posted again; posts the queue once it holds a batch. */
    private void repost(int index, long offset) {
        synchronized (repostLock) {
            repostIds[reposts] = RECEIVE_BIT | index;
            repostOffsets[reposts] = offset;
            reposts++;
            if (reposts >= repostIds.length) {
                postRepostsLocked();
            }
        }
    }

    /** On the poller thread after each drain: posts what waits, so no buffer waits past the next completion. */
    private void postReposts() {
        synchronized (repostLock) {
            if (reposts > 0) {
                postRepostsLocked();
            }
        }
    }

    private void postRepostsLocked() {
        int n = reposts;
        reposts = 0;
        if (failure != null) {
            return; // a queue pair in error flushes receives: posting more would only add flushed completions
        }
        try {
            if (n == 1) {
                res.qp.postReceive(repostIds[0], res.receiveBuffers, repostOffsets[0], res.receiveStride);
            } else {
                res.qp.postReceives(repostIds, res.receiveBuffers, repostOffsets, res.receiveStride, n);
            }
        } catch (RdmaException | RuntimeException e) {
            if (failure == null) {
                LOG.warn(name + ": re-posting " + n + " receive buffers", e);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------- failure

    private void markFailed(ConnectionClosedException c) {
        synchronized (receiveLock) {
            if (failure == null) {
                failure = c;
            }
        }
    }

    private void failWaitingReceives() {
        ConnectionClosedException c = failure;
        while (true) {
            CompletableFuture<Received> f;
            synchronized (receiveLock) {
                f = waiting.poll();
            }
            if (f == null) {
                return;
            }
            f.completeExceptionally(c);
        }
    }

    private void failAllPending() {
        ConnectionClosedException c = failure;
        if (agent != null) {
            agent.failAll(c);
        }
        failDeferred(c);
        for (Long wrId : pending.keySet()) {
            fail(wrId, c);
        }
        failWaitingReceives();
    }

    /** A CM event of this connection's id (from the poller on a client, from the server's event thread). */
    void handleCmEvent(CmEvent e) {
        if (e.type() == CmEventType.DISCONNECTED || e.type() == CmEventType.DEVICE_REMOVAL) {
            boolean byPeer = !closeCalled.get();
            markFailed(new ConnectionClosedException(name + (byPeer
                    ? ": connection disconnected by the peer (" + e.type().cName() + ")"
                    : ": connection closed") + (e.type() == CmEventType.DEVICE_REMOVAL ? ": device removed" : "")));
            if (byPeer) {
                try {
                    id.disconnect(); // on RoCE the DREP the peer's own DISCONNECTED waits for
                } catch (RdmaException | RuntimeException ignored) {
                    // already disconnected or closed
                }
            }
            failAllPending();
            disconnected.complete(e);
        }
    }

    // --------------------------------------------------------------------------------------------------- close

    /**
     * Graceful close: rdma_disconnect, wait (up to the options' timeout) for DISCONNECTED while completions still
     * complete their futures, then fail what is pending with {@link ConnectionClosedException} ("connection
     * closed"), stop the poller and free everything. Idempotent.
     */
    @Override
    public void close() {
        if (!closeCalled.compareAndSet(false, true)) {
            return;
        }
        markFailed(new ConnectionClosedException(name + ": connection closed"));
        if (!disconnected.isDone()) {
            try {
                id.disconnect();
                awaitDisconnected();
            } catch (RdmaException | RuntimeException e) {
                LOG.debug(name + ": disconnect", e);
            }
        }
        poller.stop();
        failAllPending();
        try {
            id.close();
        } catch (RuntimeException e) {
            LOG.debug(name + ": closing the id", e);
        }
        res.close();
        if (framed != null) {
            synchronized (postOrder) { // not under a post that is using it (posts see the failure and stop)
                framed.close();
            }
        }
        if (ownedEvents != null) {
            ownedEvents.close();
        }
        onClose.run();
    }

    /**
     * Waits for DISCONNECTED, delivered by the poller (client) or the server's event thread; never holds the event
     * channel's monitor for long (a waiter in it would starve the other users of the channel).
     */
    private void awaitDisconnected() throws RdmaException {
        long deadline = System.nanoTime() + options.timeout().toNanos();
        Thread me = Thread.currentThread();
        if (me == eventThread) {
            return; // the server's event thread: it would wait for itself
        }
        while (!disconnected.isDone() && System.nanoTime() - deadline < 0) {
            if (poller.isPollerThread()) { // closed from a future's callback: nobody else polls the client's events
                pollCmEvents();
            }
            try {
                disconnected.get(WAIT_SLICE_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException ignored) {
                // again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    // ------------------------------------------------------------------------------------------- the agent

    /** What the RFC 7306 agent may do to this connection. */
    private final class Link implements AgentLink {
        @Override
        public CompletableFuture<Void> postReserved(ReservedPost post) {
            return RdmaConnection.this.postReserved(post);
        }

        /**
         * RFC 7306 section 8.1 / RFC 5040 section 7: the Terminate goes out, then the stream closes. Requests already
         * posted complete as their completions come; later ones are refused at once.
         */
        @Override
        public void terminate(AgentProtocolException cause, ReservedPost terminate) {
            LOG.warn("{}: terminating the connection: the peer broke the RFC 7306 agent's protocol: {}", name,
                    cause.getMessage());
            CompletableFuture<Void> sent = RdmaConnection.this.postReserved(terminate);
            markFailed(new ConnectionClosedException(name + ": the RFC 7306 agent terminated the connection: "
                    + cause.getMessage(), cause));
            sent.orTimeout(options.timeout().toNanos(), TimeUnit.NANOSECONDS).whenComplete((v, t) -> {
                failAllPending();
                // The peer closes the stream once it has read the Terminate (its agent does, peerTerminated). A
                // disconnect from this side right after the send completes can overtake the Terminate (siw tears
                // the connection down while the message still waits in the peer's socket, and a peer handling
                // DISCONNECTED first fails its request without the RFC's error): disconnect only if the peer has
                // not within TERMINATE_LINGER.
                CompletableFuture.delayedExecutor(Math.min(TERMINATE_LINGER.toNanos(), options.timeout().toNanos()),
                        TimeUnit.NANOSECONDS).execute(() -> {
                            if (!disconnected.isDone() && !closeCalled.get()) {
                                endStream();
                            }
                        });
            });
        }

        @Override
        public void peerTerminated(AgentTerminatedException cause) {
            LOG.info("{}: {}", name, cause.getMessage());
            markFailed(new ConnectionClosedException(name + ": " + cause.getMessage(), cause));
            endStream();
        }

        @Override
        public String name() {
            return name;
        }
    }

    /** How long a connection that sent a Terminate waits for the peer to disconnect before it does. */
    static final Duration TERMINATE_LINGER = Duration.ofSeconds(2);

    /** After a Terminate: fail what is pending and disconnect (the peer's DISCONNECTED follows). */
    private void endStream() {
        failAllPending();
        try {
            id.disconnect();
        } catch (RdmaException | RuntimeException e) {
            LOG.debug(name + ": disconnect after a Terminate", e);
        }
    }

    @Override
    public String toString() {
        return name + " on " + qp.deviceName() + (failure != null ? " (" + failure.getMessage() + ")" : "");
    }
}
