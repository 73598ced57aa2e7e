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
import java.util.concurrent.atomic.AtomicLong;
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
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WcStatus;
import org.panamardma.verbs.WorkCompletionException;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.cm.QueuePairOptions;
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
 */
public final class RdmaConnection implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaConnection.class);
    static final int WAIT_SLICE_MILLIS = CompletionPoller.WAIT_SLICE_MILLIS;
    /** wr_ids of receives have the top bit set and the buffer index below. */
    private static final long RECEIVE_BIT = 1L << 63;

    /** SEND: a plain SEND, the one request that may go unsignaled (ConnectionOptions.sendSignalInterval). */
    private enum Kind { VOID, SEND, ATOMIC }

    /** @param seq the request's place in posting order (see {@link #postOrder}) */
    private record Pending(CompletableFuture<Object> future, Kind kind, int slot, long seq) {}

    /** A SEND posted unsignaled: done when a later signaled request of the send queue completes. */
    private record Unsignaled(long seq, long wrId) {}

    private record Arrived(int index, int length, boolean hasImmediate, int immediate, boolean hasInvalidated,
                           int invalidatedRkey) {}

    /** What the connection owns, made on the id's context before connect/accept (receives posted). */
    static final class Resources {
        final ConnectionOptions options;
        ProtectionDomain pd;
        CompletionChannel channel;
        CompletionQueue cq;
        MemoryRegion receiveBuffers;
        MemoryRegion atomicResults;
        QueuePair qp;

        Resources(ConnectionOptions options) {
            this.options = options;
        }

        /** The {@link org.panamardma.verbs.cm.CmConnector.QueuePairFactory}: everything, then the receives. */
        QueuePair create(CmId id) throws RdmaException {
            Context ctx = id.context();
            pd = ctx.allocateProtectionDomain();
            channel = ctx.createCompletionChannel();
            cq = ctx.createCompletionQueue(options.sendQueueDepth() + options.receiveQueueDepth(), channel);
            receiveBuffers = pd.allocate((long) options.receiveQueueDepth() * options.receiveBufferSize(),
                    Set.of(Access.LOCAL_WRITE));
            atomicResults = pd.allocate(8L * options.sendQueueDepth(), Set.of(Access.LOCAL_WRITE));
            qp = id.createQueuePair(pd, QueuePairOptions.of(cq)
                    .withQueueDepths(options.sendQueueDepth(), options.receiveQueueDepth()));
            for (int i = 0; i < options.receiveQueueDepth(); i++) {
                postReceive(i);
            }
            return qp;
        }

        void postReceive(int index) throws RdmaException {
            qp.postReceive(RECEIVE_BIT | index, receiveBuffers, (long) index * options.receiveBufferSize(),
                    options.receiveBufferSize());
        }

        /** Closes what was made (the id, with the queue pair, is closed before). */
        void close() {
            for (AutoCloseable r : new AutoCloseable[] {receiveBuffers, atomicResults, cq, channel, pd}) {
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

    RdmaConnection(CmId id, Resources res, EventChannel ownedEvents, Thread eventThread) {
        this.id = id;
        this.res = res;
        this.ownedEvents = ownedEvents;
        this.eventThread = eventThread;
        this.qp = res.qp;
        this.cq = res.cq;
        this.options = res.options;
        this.permits = new Semaphore(options.sendQueueDepth());
        this.repostIds = new long[options.receiveBatch()];
        this.repostOffsets = new long[options.receiveBatch()];
        for (int i = 0; i < options.sendQueueDepth(); i++) {
            freeSlots.add(i);
        }
        this.name = "rdma-connection-" + id.localAddress().map(RdmaConnection::format).orElse("?") + "->"
                + id.peerAddress().map(RdmaConnection::format).orElse("?");
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

    // ------------------------------------------------------------------------------------------------ requests

    /** SEND of {@code length} bytes of {@code mr} at {@code offset}: consumes one receive at the peer. */
    public CompletableFuture<Void> send(MemoryRegion mr, long offset, int length) {
        return submit(Kind.SEND, (wr, slot, flags) -> qp.postSend(wr, mr, offset, length, flags));
    }

    /** SEND with immediate data (not on siw). */
    public CompletableFuture<Void> sendWithImmediate(MemoryRegion mr, long offset, int length, int immediate) {
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
     * Write and Reply chunks (the kernel's svc_rdma_sendto: the Write WRs chained before the reply's Send). The
     * WRITEs are posted unsignaled, back to back with the SEND under one posting order, so their completions cost
     * nothing: the SEND's completion tells that they are done too (a reliable connection completes a send queue in
     * order), and the peer sees their data before the SEND's message (RC ordering).
     *
     * <p>The returned future completes when the SEND completes, or fails with the first failure of any request of
     * the chain (a WRITE in error ends the connection and flushes the SEND), or when the connection ends: either way
     * the device no longer reads the chain's memory once it is done. A chain longer than the send queue goes in
     * parts, the last WRITE of every part but the final one signaled, so that its permits come back.
     */
    public CompletableFuture<Void> writesThenSend(List<ChainedWrite> writes, MemoryRegion mr, long offset,
                                                  int length) {
        if (writes.isEmpty()) {
            return send(mr, offset, length);
        }
        CompletableFuture<Void> chain = new CompletableFuture<>();
        if (poller.isPollerThread()) {
            // the poller must not wait for permits: every request goes through the ordered deferred queue
            for (ChainedWrite w : writes) {
                failChainOn(write(w.mr(), w.offset(), w.length(), w.remoteAddress(), w.rkey()), chain);
            }
            relay(send(mr, offset, length), chain);
            return chain;
        }
        int part = Math.max(1, options.sendQueueDepth());
        int from = 0;
        while (from < writes.size()) {
            int to = Math.min(writes.size(), from + part);
            boolean last = writes.size() - from < part; // room for the SEND after the remaining WRITEs
            int requests = last ? to - from + 1 : to - from;
            ConnectionClosedException c = acquire(requests);
            if (c != null) {
                chain.completeExceptionally(c);
                return chain;
            }
            synchronized (postOrder) {
                for (int i = from; i < to; i++) {
                    ChainedWrite w = writes.get(i);
                    boolean signaled = !last && i == to - 1;
                    CompletableFuture<Object> f = new CompletableFuture<>();
                    failChainOn(f, chain);
                    postChained(chain, f, Kind.VOID, signaled, (wr, slot, flags) -> qp.postWrite(wr, w.mr(), w.offset(),
                            w.length(), w.remoteAddress(), w.rkey(), flags));
                }
                if (last) {
                    CompletableFuture<Object> f = new CompletableFuture<>();
                    relay(f, chain);
                    postChained(chain, f, Kind.SEND, true, (wr, slot, flags) -> qp.postSend(wr, mr, offset, length, flags));
                }
            }
            if (last) {
                return chain;
            }
            from = to;
        }
        // every part was full: the SEND goes alone
        relay(send(mr, offset, length), chain);
        return chain;
    }

    private static void failChainOn(CompletableFuture<?> request, CompletableFuture<Void> chain) {
        request.whenComplete((v, t) -> {
            if (t != null) {
                chain.completeExceptionally(t);
            }
        });
    }

    private static void relay(CompletableFuture<?> request, CompletableFuture<Void> chain) {
        request.whenComplete((v, t) -> {
            if (t != null) {
                chain.completeExceptionally(t);
            } else {
                chain.complete(null);
            }
        });
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
     * Posts one request of a chain, holding {@link #postOrder} and the request's permit: as {@link #postAcquired},
     * but signaled or not as the chain says (an unsignaled one is done when a later signaled one completes).
     */
    private void postChained(CompletableFuture<Void> chain, CompletableFuture<Object> f, Kind kind,
                             boolean signaled, Post post) {
        long wrId = nextWrId.incrementAndGet();
        long seq = ++postSeq;
        pending.put(wrId, new Pending(f, kind, -1, seq));
        if (!signaled) {
            unsignaled.add(new Unsignaled(seq, wrId));
        }
        ConnectionClosedException c = failure;
        if (c != null) {
            fail(wrId, c);
            return;
        }
        if (chain.isCompletedExceptionally()) {
            // an earlier request of the chain failed to post: the rest is not posted (its permit comes back)
            fail(wrId, new IllegalStateException(name + ": an earlier request of the chain failed"));
            return;
        }
        try {
            post.post(wrId, -1, signaled ? SendFlags.SIGNALED : 0);
            unsignaledRun = signaled ? 0 : unsignaledRun + 1;
        } catch (Throwable t) {
            fail(wrId, t);
        }
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

    /** RDMA READ of {@code length} bytes at the peer's {@code remoteAddress} into {@code mr} at {@code offset}. */
    public CompletableFuture<Void> read(MemoryRegion mr, long offset, int length, long remoteAddress, int rkey) {
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

    /** ATOMIC FETCH AND ADD on the peer's 8-byte aligned word: completes with the word's previous value. */
    public CompletableFuture<Long> fetchAdd(long remoteAddress, int rkey, long add) {
        return submit(Kind.ATOMIC, (wr, slot, flags) -> qp.postFetchAdd(wr, res.atomicResults, 8L * slot, remoteAddress,
                rkey, add, SendFlags.SIGNALED));
    }

    /** ATOMIC COMPARE AND SWAP on the peer's 8-byte aligned word: completes with the word's previous value. */
    public CompletableFuture<Long> compareSwap(long remoteAddress, int rkey, long compare, long swap) {
        return submit(Kind.ATOMIC, (wr, slot, flags) -> qp.postCompareSwap(wr, res.atomicResults, 8L * slot, remoteAddress,
                rkey, compare, swap, SendFlags.SIGNALED));
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
        Integer slot = kind == Kind.ATOMIC ? freeSlots.poll() : Integer.valueOf(-1);
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
        if (p.slot >= 0) {
            freeSlots.add(p.slot);
        }
        permits.release();
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
                received(new Arrived(index, wc.byteLength(i), wc.hasImmediate(i), wc.hasImmediate(i)
                        ? wc.immediate(i) : 0, wc.hasInvalidated(i), wc.hasInvalidated(i) ? wc.invalidatedRkey(i) : 0));
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
            return; // failed already (close)
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
        long offset = (long) a.index * options.receiveBufferSize();
        byte[] data = res.receiveBuffers.segment().asSlice(offset, a.length).toArray(JAVA_BYTE);
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
                res.qp.postReceive(repostIds[0], res.receiveBuffers, repostOffsets[0], options.receiveBufferSize());
            } else {
                res.qp.postReceives(repostIds, res.receiveBuffers, repostOffsets, options.receiveBufferSize(), n);
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

    @Override
    public String toString() {
        return name + " on " + qp.deviceName() + (failure != null ? " (" + failure.getMessage() + ")" : "");
    }
}
