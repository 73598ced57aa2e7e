package org.panamardma.verbs.connection;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.FlushScope;
import org.panamardma.verbs.FlushType;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.MemoryWindow;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RemoteRegion;
import org.panamardma.verbs.SendChain;
import org.panamardma.verbs.SendFlags;
import org.panamardma.verbs.WorkCompletionException;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.connection.agent.AgentMode;
import org.panamardma.verbs.connection.agent.Handshake;
import org.panamardma.verbs.extensions.RemoteWord;

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
 * dry, arms it, polls again (completions that raced the arming make no event) and sleeps on the completion channel
 * until a completion, a CM event or close wakes it ({@link CompletionPoller}): an idle connection costs no
 * wake-ups. Futures complete on that
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
public final class RdmaConnection extends EstablishedConnection implements AutoCloseable {
    static final int WAIT_SLICE_MILLIS = CompletionPoller.WAIT_SLICE_MILLIS;

    private final Requests requests;

    RdmaConnection(CmId id, ConnectionResources res, EventChannel ownedEvents, Thread eventThread) {
        this(id, res, ownedEvents, eventThread, null);
    }

    /** @param agentTerms what the handshake agreed for the RFC 7306 agent, or null where it is not active */
    RdmaConnection(
            CmId id,
            ConnectionResources res,
            EventChannel ownedEvents,
            Thread eventThread,
            Handshake.Negotiated agentTerms) {
        super(id, res, ownedEvents, eventThread, agentTerms);
        this.requests = new Requests(name, res, sends, agent, this::onPollerThread);
    }

    /**
     * SEND of {@code length} bytes of {@code mr} at {@code offset}: consumes one receive at the peer.
     *
     * @param mr     the region the bytes are in (registered in {@link #protectionDomain()})
     * @param offset where in {@code mr}, in bytes
     * @param length bytes sent: at most the peer's receive buffer size
     * @return completes when the SEND completed (the call waits for a free send-queue slot while
     *         {@link #maxOutstanding()} requests are in flight); fails, never throws: with the post's exception
     *         (IndexOutOfBoundsException for a range outside {@code mr}, an RdmaException with the verb's errno), a
     *         WorkCompletionException if the request completes in error (which ends the connection), or
     *         ConnectionClosedException once the connection has failed
     */
    public CompletableFuture<Void> send(MemoryRegion mr, long offset, int length) {
        return requests.send(mr, offset, length);
    }

    /**
     * SEND with immediate data: the peer's {@link #receive()} gets the bytes and the value. On iWARP only with the
     * RFC 7306 agent, which then carries the value in the SEND's header (on every device where it is active).
     *
     * @param mr        the region the bytes are in (registered in {@link #protectionDomain()})
     * @param offset    where in {@code mr}, in bytes
     * @param length    bytes sent: at most the peer's receive buffer size
     * @param immediate the 32 bits the peer's {@link Received} carries
     * @return completes when the SEND completed (the call waits for a free send-queue slot while
     *         {@link #maxOutstanding()} requests are in flight); fails, never throws: with the post's exception
     *         (IndexOutOfBoundsException for a range outside {@code mr}, an RdmaException with the verb's errno), a
     *         WorkCompletionException if the request completes in error (which ends the connection), or
     *         ConnectionClosedException once the connection has failed; fails at once, nothing sent, on iWARP without
     *         an active agent
     */
    public CompletableFuture<Void> sendWithImmediate(MemoryRegion mr, long offset, int length, int immediate) {
        return requests.sendWithImmediate(mr, offset, length, immediate);
    }

    /**
     * One RDMA WRITE of a reply ({@link #writesThenSend}): {@code length} bytes of {@code mr} at {@code offset}.
     *
     * @param mr            the region the bytes are in
     * @param offset        where in {@code mr}, in bytes
     * @param length        bytes written, at least 1
     * @param remoteAddress the peer's virtual address the bytes go to
     * @param rkey          the peer region's key (remote write access)
     */
    public record ChainedWrite(MemoryRegion mr, long offset, int length, long remoteAddress, int rkey) {
        /** A WRITE; refuses a null region and an empty range. */
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
     *
     * @param writes the WRITEs, in order; may be empty
     * @param mr     the region of the SEND's bytes
     * @param offset where in {@code mr}, in bytes of the SEND's bytes
     * @param length bytes of the SEND: at most the peer's receive buffer size
     * @return see above
     */
    public CompletableFuture<Void> writesThenSend(List<ChainedWrite> writes, MemoryRegion mr, long offset, int length) {
        return requests.writesThenSend(writes, mr, offset, length);
    }

    /**
     * RDMA WRITE with immediate data: {@code length} bytes of {@code mr} at {@code offset} to the peer's {@code
     * remoteAddress}, then the peer's {@link #receive()} gets an empty message with the value, once the bytes are
     * there. Through the RFC 7306 agent (where active; iWARP has it no other way) this is RFC 7306 section 6's
     * composition, the WRITE then an Immediate Data message, posted together; the future completes with the
     * second (a failed WRITE fails it, the Immediate Data message flushed behind).
     *
     * @param mr            the region the bytes are in (registered in {@link #protectionDomain()})
     * @param offset        where in {@code mr}, in bytes
     * @param length        bytes written
     * @param remoteAddress the peer's virtual address the bytes go to
     * @param rkey          the peer region's key (remote write access)
     * @param immediate     the 32 bits the peer's {@link Received} carries
     * @return completes when the request completed: on InfiniBand and RoCE the peer has the bytes and the value; on
     *         iWARP, through the agent, both were sent (see {@link #write(MemoryRegion, long, int, long, int)}), and
     *         the peer's receive of the value is what says the bytes are there (the call waits for a free send-queue
     *         slot while {@link #maxOutstanding()} requests are in flight); fails, never throws: with the post's
     *         exception (IndexOutOfBoundsException for a range outside {@code mr}, an RdmaException with the verb's
     *         errno), a WorkCompletionException if the request completes in error (which ends the connection), or
     *         ConnectionClosedException once the connection has failed
     */
    public CompletableFuture<Void> writeWithImmediate(
            MemoryRegion mr, long offset, int length, long remoteAddress, int rkey, int immediate) {
        return requests.writeWithImmediate(mr, offset, length, remoteAddress, rkey, immediate);
    }

    /**
     * The next message the peer SENT (in arrival order), copied out of its receive buffer; the buffer is posted
     * again before the future completes, or with {@link ConnectionOptions#receiveBatch()} above 1 queued to be
     * posted with the next batch (at the latest when the poller has drained the CQ). Fails with {@link ConnectionClosedException} once the connection has
     * failed and every message already received has been taken.
     *
     * @return completes with the message; many calls may wait at once, each takes the next message
     */
    public CompletableFuture<Received> receive() {
        return receives.receive();
    }

    /**
     * RDMA WRITE of {@code length} bytes of {@code mr} at {@code offset} to the peer's {@code remoteAddress}.
     *
     * <p>The completion frees {@code mr}'s bytes for reuse. That the peer's memory has them it says on InfiniBand and
     * RoCE (the responder acknowledged them) but not on iWARP: RFC 5040 section 5.5 promises the Data Source no more,
     * and Soft-iWARP completes a WRITE once TCP took it. What orders placement, on every transport, is a message
     * after the WRITE on this connection: the peer that receives a SEND posted behind it (as {@link #writesThenSend}
     * posts) finds the bytes placed, and an RDMA READ of ours behind it is answered only after they were placed.
     *
     * @param mr            the region the bytes are in (registered in {@link #protectionDomain()})
     * @param offset        where in {@code mr}, in bytes
     * @param length        bytes written
     * @param remoteAddress the peer's virtual address the bytes go to
     * @param rkey          the peer region's key (remote write access)
     * @return completes when the WRITE completed (above: at the peer on InfiniBand and RoCE, sent on iWARP) (the call
     *         waits for a free send-queue slot while {@link #maxOutstanding()} requests are in flight); fails, never
     *         throws: with the post's exception (IndexOutOfBoundsException for a range outside {@code mr}, an
     *         RdmaException with the verb's errno), a WorkCompletionException if the request completes in error (which
     *         ends the connection), or ConnectionClosedException once the connection has failed
     */
    public CompletableFuture<Void> write(MemoryRegion mr, long offset, int length, long remoteAddress, int rkey) {
        return requests.write(mr, offset, length, remoteAddress, rkey);
    }

    /**
     * RDMA WRITE of {@code length} bytes to the start of {@code remote}.
     *
     * @param mr     the region the bytes are in (registered in {@link #protectionDomain()})
     * @param offset where in {@code mr}, in bytes
     * @param length bytes written
     * @param remote the peer's region, as it advertised it
     * @return as {@link #write(MemoryRegion, long, int, long, int)}
     * @throws IndexOutOfBoundsException if {@code length} bytes do not fit in {@code remote}: refused here, where the
     *                                   peer's device would fail the WRITE with a remote access error and the
     *                                   connection with it
     */
    public CompletableFuture<Void> write(MemoryRegion mr, long offset, int length, RemoteRegion remote) {
        RemoteRegion target = remote.slice(0, length);
        return write(mr, offset, length, target.address(), target.rkey());
    }

    /**
     * RDMA READ of {@code length} bytes at the peer's {@code remoteAddress} into {@code mr} at {@code offset}. With
     * the agent providing atomics, a READ waits until the agent atomics posted before it have their responses, so
     * that it reads what they wrote (RFC 7306 section 7, "Atomic | RDMA Read").
     *
     * @param mr            the region the bytes land in (local write access)
     * @param offset        where in {@code mr}, in bytes
     * @param length        bytes read
     * @param remoteAddress the peer's virtual address read from
     * @param rkey          the peer region's key (remote read access)
     * @return completes when the bytes are in {@code mr} (the call waits for a free send-queue slot while
     *         {@link #maxOutstanding()} requests are in flight); fails, never throws: with the post's exception
     *         (IndexOutOfBoundsException for a range outside {@code mr}, an RdmaException with the verb's errno), a
     *         WorkCompletionException if the request completes in error (which ends the connection), or
     *         ConnectionClosedException once the connection has failed
     */
    public CompletableFuture<Void> read(MemoryRegion mr, long offset, int length, long remoteAddress, int rkey) {
        return requests.read(mr, offset, length, remoteAddress, rkey);
    }

    /**
     * A zero-length RDMA READ from the peer (key 0, address 0): {@link org.panamardma.verbs.cm.StreamStartProbe}'s
     * probe, answered by the peer's device without touching memory.
     */
    CompletableFuture<Void> readNothing() {
        return requests.readNothing();
    }

    /**
     * RDMA READ of {@code length} bytes from the start of {@code remote}.
     *
     * @param mr     the region the bytes land in (local write access)
     * @param offset where in {@code mr}, in bytes
     * @param length bytes read
     * @param remote the peer's region, as it advertised it
     * @return as {@link #read(MemoryRegion, long, int, long, int)}
     * @throws IndexOutOfBoundsException if {@code remote} is shorter than {@code length} bytes (refused here, before
     *                                   the peer's device refuses it and fails the connection)
     */
    public CompletableFuture<Void> read(MemoryRegion mr, long offset, int length, RemoteRegion remote) {
        RemoteRegion source = remote.slice(0, length);
        return read(mr, offset, length, source.address(), source.rkey());
    }

    /**
     * ATOMIC FETCH AND ADD on the peer's 8-byte aligned word: completes with the word's previous value. By the device,
     * or by the RFC 7306 agent ({@link #capabilities()}).
     *
     * @param remoteAddress the peer's virtual address of the word, 8-byte aligned
     * @param rkey          the peer region's key (remote atomic access)
     * @param add           the value added, wrapping at 64 bits
     * @return completes with the previous value (the call waits for a free send-queue slot while
     *         {@link #maxOutstanding()} requests are in flight); fails as
     *         {@link #write(MemoryRegion, long, int, long, int)}'s does, and at once (nothing sent) for an unaligned
     *         address or where neither the device nor the agent has atomics
     */
    public CompletableFuture<Long> fetchAdd(long remoteAddress, int rkey, long add) {
        return requests.fetchAdd(remoteAddress, rkey, add);
    }

    /**
     * ATOMIC COMPARE AND SWAP on the peer's 8-byte aligned word: completes with the word's previous value. By the
     * device, or by the RFC 7306 agent ({@link #capabilities()}).
     *
     * @param remoteAddress the peer's virtual address of the word, 8-byte aligned
     * @param rkey          the peer region's key (remote atomic access)
     * @param compare       the value the word must hold
     * @param swap          the value it then gets
     * @return completes with the previous value (the swap happened iff it equals {@code compare}); fails as
     *         {@link #fetchAdd}'s does
     */
    public CompletableFuture<Long> compareSwap(long remoteAddress, int rkey, long compare, long swap) {
        return requests.compareSwap(remoteAddress, rkey, compare, swap);
    }

    /**
     * RFC 7306 section 5.1.1's masked FetchAdd: the word is added to field by field, a set bit of {@code addMask}
     * marking each field's most significant bit (0: a plain FetchAdd). Completes with the word's previous value. By
     * the agent in one request; by a device's atomics as compare-and-swap loops ({@link
     * org.panamardma.verbs.extensions.MaskedAtomics}), each lost race costing a round trip more.
     *
     * @param remoteAddress the peer's virtual address of the word, 8-byte aligned
     * @param rkey          the peer region's key (remote atomic access)
     * @param add           the value added field by field
     * @param addMask       the fields' most significant bits
     * @return completes with the previous value; fails as {@link #fetchAdd}'s does
     */
    public CompletableFuture<Long> maskedFetchAdd(long remoteAddress, int rkey, long add, long addMask) {
        return requests.maskedFetchAdd(remoteAddress, rkey, add, addMask);
    }

    /**
     * RFC 7306 section 5.1.2's masked CmpSwap: if the bits of {@code compareMask} equal {@code compare}'s, the bits
     * of {@code swapMask} become {@code swap}'s. Completes with the word's previous value. By the agent in one
     * request; by a device's atomics as compare-and-swap loops.
     *
     * @param remoteAddress the peer's virtual address of the word, 8-byte aligned
     * @param rkey          the peer region's key (remote atomic access)
     * @param compare       the value compared under {@code compareMask}
     * @param compareMask   the bits compared
     * @param swap          the value written under {@code swapMask}
     * @param swapMask      the bits replaced
     * @return completes with the previous value; fails as {@link #fetchAdd}'s does
     */
    public CompletableFuture<Long> maskedCompareSwap(
            long remoteAddress, int rkey, long compare, long compareMask, long swap, long swapMask) {
        return requests.maskedCompareSwap(remoteAddress, rkey, compare, compareMask, swap, swapMask);
    }

    /**
     * The peer's 8-byte word {@code word} as a {@link RemoteWord} over {@link #compareSwap}, for the synchronous
     * {@link org.panamardma.verbs.extensions.MaskedAtomics}: each compare-and-swap waits for its answer up to the
     * connection's timeout. Usable from any thread but the poller's.
     *
     * @param word the peer's 8-byte word (8-byte aligned, remote atomic access)
     * @return the word; each call of it blocks its thread
     */
    public RemoteWord remoteWord(RemoteRegion word) {
        return requests.remoteWord(word);
    }

    /**
     * Binds the type 2 window {@code mw} under {@code newRkey} to {@code length} bytes of {@code mr} at
     * {@code offset} with {@code access} ({@link QueuePair#postBindMemoryWindow}): completes when the bind has
     * executed; requests made after this call execute after it. The window's key is {@code newRkey} once this
     * returns (unless the future failed at once).
     *
     * @param mw      a type 2 window of this connection's protection domain, not bound
     * @param newRkey the window's next key, usually {@link MemoryWindow#nextRkey()}
     * @param mr      the region the window exposes part of
     * @param offset  where the window starts in {@code mr}, in bytes
     * @param length  the window's length in bytes
     * @param access  remote rights only: REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC
     * @return completes when the bind executed; fails at once for what {@link QueuePair#postBindMemoryWindow} refuses
     */
    public CompletableFuture<Void> bindMemoryWindow(
            MemoryWindow mw, int newRkey, MemoryRegion mr, long offset, long length, Set<Access> access) {
        return requests.bindMemoryWindow(mw, newRkey, mr, offset, length, access);
    }

    /**
     * Invalidates the bound window {@code mw} ({@link QueuePair#postInvalidate}): completes when the invalidation has
     * executed, after which the peer's accesses with the window's key fail.
     *
     * @param mw a window bound through this connection
     * @return completes when the invalidation executed
     */
    public CompletableFuture<Void> invalidate(MemoryWindow mw) {
        return requests.invalidate(mw);
    }

    /**
     * RDMA FLUSH (draft-talpey-rdma-commit) of the peer's range or whole region.
     *
     * @param remoteAddress the peer's virtual address of the range (ignored for the whole region)
     * @param rkey          the peer region's key; it must grant the type's access
     * @param length        bytes flushed
     * @param type          global visibility or persistence
     * @param scope         the range or the whole region
     * @return completes when the peer has made the data visible or persistent; fails at once where the QP cannot FLUSH
     */
    public CompletableFuture<Void> flush(long remoteAddress, int rkey, long length, FlushType type, FlushScope scope) {
        return requests.flush(remoteAddress, rkey, length, type, scope);
    }

    /**
     * RDMA ATOMIC WRITE (draft-talpey-rdma-commit) of a 64-bit value to the peer's 8-byte aligned word.
     *
     * @param remoteAddress the peer's virtual address of the word, 8-byte aligned
     * @param rkey          the peer region's key (remote write access)
     * @param value         the 64 bits stored
     * @return completes when the store executed at the peer; fails at once where the QP cannot ATOMIC WRITE
     */
    public CompletableFuture<Void> atomicWrite(long remoteAddress, int rkey, long value) {
        return requests.atomicWrite(remoteAddress, rkey, value);
    }

    /**
     * Graceful close: rdma_disconnect, wait (up to the options' timeout) for DISCONNECTED while completions still
     * complete their futures, then fail what is pending with {@link ConnectionClosedException} ("connection
     * closed"), stop the poller and free everything. Idempotent.
     */
    @Override
    public void close() {
        if (end.close(() -> {
            res.close();
            requests.close();
        })) {
            closed();
        }
    }
}
