package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RpcRdmaHeader;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderException;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.Received;
import org.panamardma.verbs.trusted.Callbacks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receive side of an {@link RpcRdmaClient}: takes each reply on the connection's poller thread, which completed
 * its receive (no hand-off to another thread, a wake-up per reply), checks its transport header and hands it to its
 * call ({@link Calls#replied}); the reply itself is decoded by {@link ReplyDecoding} once the call's chunks are
 * revoked. A reply to no pending call is dropped and counted; one with a header we cannot parse fails its call if its
 * XID was readable, else is dropped (RFC 8166 section 4.5). The connection's end fails every call.
 */
final class ReplyReceiver {
    private static final Logger LOG = LoggerFactory.getLogger(ReplyReceiver.class);

    private final String name;
    /** The connection's next received message ({@link RdmaConnection#receive()}). */
    private final Supplier<CompletableFuture<Received>> receives;

    private final Calls calls;
    private final ChunkMemory memory;
    private final RpcRdmaHeaderDecoder headerDecoder = new RpcRdmaHeaderDecoder();
    private final AtomicLong droppedReplies = new AtomicLong();

    ReplyReceiver(String name, RdmaConnection connection, Calls calls, ChunkMemory memory) {
        this(name, connection::receive, calls, memory);
    }

    /** With {@code receives} in place of a connection's {@code receive()}: how a test feeds it. */
    ReplyReceiver(String name, Supplier<CompletableFuture<Received>> receives, Calls calls, ChunkMemory memory) {
        this.name = name;
        this.receives = receives;
        this.calls = calls;
        this.memory = memory;
    }

    /** {@return replies dropped because no call with their XID was pending} */
    long droppedReplies() {
        return droppedReplies.get();
    }

    /**
     * Takes the next reply as soon as it is there, on the connection's poller thread. Messages already waiting are
     * handled in this loop rather than by nesting callbacks.
     */
    void receiveNext() {
        while (true) {
            CompletableFuture<Received> next = receives.get();
            if (!next.isDone()) {
                // an exception from onReceived would otherwise end the receive loop without a word
                Callbacks.whenDone(next, name, (message, t) -> {
                    if (onReceived(message, t)) {
                        receiveNext();
                    }
                });
                return;
            }
            Received message = null;
            Throwable t = null;
            try {
                message = next.join();
            } catch (CompletionException | CancellationException e) {
                t = e;
            }
            if (!onReceived(message, t)) {
                return;
            }
        }
    }

    /** One received message, or the connection's end; whether to go on receiving. */
    private boolean onReceived(Received message, Throwable t) {
        if (t != null) {
            calls.failAll(Calls.lost(
                    name,
                    calls.closed() ? "client closed" : "connection lost",
                    t instanceof CompletionException c && c.getCause() != null ? c.getCause() : t));
            return false;
        }
        if (message.hasInvalidated()) {
            // the server's Send With Invalidate (we announce no remote invalidation, RFC 8797, but a server may send
            // it anyway): its key is free now, and must not be invalidated again by us
            memory.invalidatedByPeer(message.invalidatedRkey());
        }
        try {
            onMessage(MemorySegment.ofArray(message.data()));
        } catch (RuntimeException e) {
            LOG.warn(name + ": reply handling failed", e);
        }
        return true;
    }

    private void onMessage(MemorySegment message) {
        RpcRdmaHeader header;
        DecodedHeader decoded = null;
        try {
            decoded = headerDecoder.decode(message);
            header = decoded.header();
        } catch (RpcRdmaHeaderException e) {
            Optional<RdmaError.VersionMismatch> errVers = ReplyDecoding.errVersEchoingOurVersion(message);
            if (errVers.isPresent()) {
                header = errVers.get();
            } else {
                badHeader(e);
                return;
            }
        }
        int xid = header.xid();
        Call call = calls.replied(xid, header.credits());
        if (call == null) {
            droppedReplies.incrementAndGet();
            LOG.atDebug().log(() -> name + ": dropped a reply to xid " + Integer.toHexString(xid)
                    + ": no such call pending (timed out?)");
            return;
        }
        RpcRdmaHeader h = header;
        MemorySegment inline = header instanceof RdmaMsg && decoded != null ? decoded.rpcMessage(message) : null;
        // decoded once the chunks are revoked: the server can no longer change the Reply chunk or the bounces
        calls.end(
                call,
                () -> ReplyDecoding.decode(
                        name + ": call " + call.hexXid(),
                        h,
                        inline,
                        call.plan,
                        call.expectation,
                        call.chunks.replyChunk,
                        call.chunks.bounces,
                        call.offered()),
                null);
    }

    /**
     * A reply we cannot parse: fail its call if its XID was readable, else drop it (RFC 8166 section 4.5 has a
     * requester drop malformed replies; a retransmission is the upper layer's business).
     */
    private void badHeader(RpcRdmaHeaderException e) {
        LOG.warn(name + ": dropped a reply with a bad transport header: " + e.getMessage());
        if (e.xid().isPresent()) {
            calls.badReply(
                    e.xid().getAsInt(),
                    new RpcRdmaException.BadReply(name + ": bad reply header: " + e.getMessage(), e));
        }
    }
}
