package org.panamardma.oncrpc4j;

import java.net.InetSocketAddress;
import java.nio.channels.CompletionHandler;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.dcache.oncrpc4j.grizzly.GrizzlyMemoryManager;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthException;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcTransport;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.FileChunk;
import org.glassfish.grizzly.asyncqueue.WritableMessage;
import org.glassfish.grizzly.memory.Buffers;

/**
 * oncrpc4j's view of the RPC-over-RDMA connection one call came on, for that call only (as oncrpc4j's own
 * {@code GrizzlyRpcTransport} is made per received message): what the service's {@code call.reply(...)} (and
 * {@code reject}, {@code failProcedureUnavailable}...) hands its encoded reply to. {@link #send} does not send: it
 * hands the reply to the thread that serves the call on the RDMA connection ({@link OncRpcBridge}), which encodes it
 * into the RPC-over-RDMA reply (inline, Reply chunk, Write chunk) once the service has answered, whichever thread the
 * service answered on.
 *
 * <p>The first reply counts; another is refused ({@code handler.failed}), as is a reply after the bridge stopped
 * waiting for it. The completion handler hears {@code completed} once the reply has been encoded and its chunks
 * RDMA-written (the last moment the bridge sees: the Send that follows is the connection's), or {@code failed}.
 *
 * <p>Calls from the server to the client (NFSv4.1 backchannel, RFC 8167 bidirectional RPC-over-RDMA) are not
 * offered: {@link #getPeerTransport()} throws. RPC-over-TLS cannot start on an RDMA connection: {@link #startTLS()}
 * refuses with AUTH_ERROR, as oncrpc4j's transport does when TLS is not configured.
 */
final class RdmaCallTransport implements RpcTransport {
    /**
     * The encoded reply, taken out of the Xdr the program encoded it into, and whom to tell when it has gone.
     *
     * @param head the reply's bytes (position to limit)
     * @param file the file chunk to follow them, or null
     * @param notification the program's completion handler
     */
    record Reply(Buffer head, FileChunk file, Notification notification) {}

    /** The service's completion handler with its attachment, typed once. */
    interface Notification {
        void completed(int bytes);

        void failed(Throwable cause);
    }

    /** msg_type REPLY (RFC 5531 section 9). */
    private static final int REPLY = 1;

    private final InetSocketAddress local;
    private final InetSocketAddress remote;
    private final ReplyQueue replyQueue;
    private final CompletableFuture<Reply> reply = new CompletableFuture<>();
    private final AtomicBoolean open;

    /**
     * @param local the connection's local address
     * @param remote the client's address
     * @param replyQueue the bridge's (oncrpc4j's RpcCall asks for one only when it makes calls of its own)
     * @param open whether the bridge still serves
     */
    RdmaCallTransport(InetSocketAddress local, InetSocketAddress remote, ReplyQueue replyQueue, AtomicBoolean open) {
        this.local = Objects.requireNonNull(local, "local");
        this.remote = Objects.requireNonNull(remote, "remote");
        this.replyQueue = Objects.requireNonNull(replyQueue, "replyQueue");
        this.open = Objects.requireNonNull(open, "open");
    }

    /** @return completes with the service's reply (the first one sent) */
    CompletableFuture<Reply> reply() {
        return reply;
    }

    /**
     * Stops accepting a reply: one sent later is refused.
     *
     * @return whether no reply had come
     */
    boolean abandon(Throwable why) {
        return reply.completeExceptionally(why);
    }

    @Override
    public <A> void send(Xdr xdr, A attachment, CompletionHandler<Integer, ? super A> handler) {
        Objects.requireNonNull(xdr, "xdr");
        Objects.requireNonNull(handler, "CompletionHandler can't be null");
        Notification notification = new Notification() {
            @Override
            public void completed(int bytes) {
                handler.completed(bytes, attachment);
            }

            @Override
            public void failed(Throwable cause) {
                handler.failed(cause, attachment);
            }
        };
        WritableMessage[] parts = xdr instanceof BoundedXdr ours ? ours.detach() : copy(xdr);
        Buffer head = (Buffer) parts[0];
        FileChunk file = parts.length > 1 ? (FileChunk) parts[1] : null;
        if (head.remaining() < 2 * Integer.BYTES || head.getInt(head.position() + Integer.BYTES) != REPLY) {
            // RpcCall.call(...) on a received call sends a call to the client through its transport
            release(file);
            handler.failed(
                    new UnsupportedOperationException("calls to the client (backchannel, RFC 8167) are not"
                            + " offered over the RPC-over-RDMA bridge"),
                    attachment);
            return;
        }
        if (!reply.complete(new Reply(head, file, notification))) {
            // A second reply to one call, or one after the bridge gave up waiting: RPC-over-RDMA has no room for it
            // (the client's credit and chunks belong to the first), so it is not sent.
            release(file);
            handler.failed(
                    new IllegalStateException(
                            reply.isCompletedExceptionally()
                                    ? "the bridge stopped waiting for this call's reply"
                                    : "this call was answered already"),
                    attachment);
        }
    }

    /** A reply in an Xdr the bridge did not make: its bytes copied, so that its owner may reuse it. */
    private static WritableMessage[] copy(Xdr xdr) {
        WritableMessage[] parts = xdr.asBufferWritableMessages();
        Buffer head = (Buffer) parts[0];
        byte[] bytes = new byte[head.remaining()];
        head.get(bytes);
        parts[0] = Buffers.wrap(GrizzlyMemoryManager.getDefaultMemoryManager(), bytes);
        return parts;
    }

    private static void release(FileChunk file) {
        if (file != null) {
            file.release();
        }
    }

    @Override
    public ReplyQueue getReplyQueue() {
        return replyQueue;
    }

    @Override
    public boolean isOpen() {
        return open.get();
    }

    @Override
    public InetSocketAddress getLocalSocketAddress() {
        return local;
    }

    @Override
    public InetSocketAddress getRemoteSocketAddress() {
        return remote;
    }

    @Override
    public RpcTransport getPeerTransport() {
        throw new UnsupportedOperationException(
                "calls to the client (backchannel, RFC 8167) are not offered over" + " the RPC-over-RDMA bridge");
    }

    @Override
    public void startTLS() throws RpcAuthException {
        throw new RpcAuthException(
                "RPC-over-TLS cannot start on an RPC-over-RDMA connection", new RpcAuthError(RpcAuthStat.AUTH_FAILED));
    }

    @Override
    public boolean isTLS() {
        return false;
    }

    @Override
    public String toString() {
        return remote + " <=> " + local + " (RPC-over-RDMA)";
    }
}
