package org.panamardma.rpcrdma.client;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcClient;
import org.panamardma.oncrpc.tcp.RpcConnectionException;
import org.panamardma.oncrpc.tcp.RpcException;
import org.panamardma.oncrpc.tcp.RpcReplyException;
import org.panamardma.oncrpc.tcp.RpcTimeoutException;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrReader;

/**
 * {@link RpcRdmaClient} as an {@link RpcClient}: the same calls and the same exceptions as over TCP.
 *
 * <p>Arguments of any size work as over TCP: the client moves DDP-eligible items ({@code putEligibleOpaque}) to
 * Read chunks and sends a call too long for the inline threshold as a Long Call. Results are the difference:
 * RPC-over-RDMA needs the requester to provide room for a reply that does not fit inline before the call is sent
 * (RFC 8166 section 3.5.3), and this interface carries no per-call size. So each call offers a Reply chunk of
 * {@code maxResultsSize} bytes when that exceeds the inline threshold (registered for that call only); with the
 * default ({@code -1}) replies must fit inline (4 KiB against knfsd or {@code RpcRdmaServer}), and a larger one is
 * refused by the server with ERR_CHUNK, which the caller sees as an {@link RpcException} whose cause is a
 * {@link RpcRdmaException.ChunkError}. Use {@link #rdma()} for placement of reply data into your own memory.
 *
 * <p>Exceptions: {@link RpcRdmaException.Timeout} becomes {@link RpcTimeoutException},
 * {@link RpcRdmaException.ConnectionLost} becomes {@link RpcConnectionException}, the other transport failures
 * (RDMA_ERROR, a malformed reply) and encoding failures a plain {@link RpcException}, an error status from the
 * server {@link RpcReplyException}; the RDMA exception is always the cause.
 */
public final class RdmaRpcClient implements RpcClient {
    private final RpcRdmaClient rdma;
    private final long maxResultsSize;
    private final String description;

    /**
     * An {@link org.panamardma.oncrpc.RpcClient} over {@code rdma}.
     *
     * @param rdma the connected client (closed with this one)
     * @param maxResultsSize the largest results to make room for, {@code -1}: inline only (see the class comment)
     */
    public RdmaRpcClient(RpcRdmaClient rdma, long maxResultsSize) {
        this.rdma = Objects.requireNonNull(rdma, "rdma");
        if (maxResultsSize < -1) {
            throw new IllegalArgumentException("maxResultsSize " + maxResultsSize);
        }
        this.maxResultsSize = maxResultsSize;
        this.description = "rdma://"
                + rdma.peerAddress()
                        .map(a -> {
                            String h = a.getHostString();
                            return (h.contains(":") ? "[" + h + "]" : h) + ":" + a.getPort();
                        })
                        .orElse("?");
    }

    /** {@return the RPC-over-RDMA client underneath, for what this interface does not cover} */
    public RpcRdmaClient rdma() {
        return rdma;
    }

    @Override
    public <T> CompletableFuture<T> call(
            int program,
            int version,
            int procedure,
            OpaqueAuth credential,
            XdrEncodable arguments,
            XdrReader<? extends T> results,
            Duration timeout) {
        Objects.requireNonNull(credential, "credential");
        Objects.requireNonNull(arguments, "arguments");
        Objects.requireNonNull(results, "results");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, not " + timeout);
        }
        String what = "call " + Integer.toUnsignedString(program) + "." + Integer.toUnsignedString(version) + "."
                + Integer.toUnsignedString(procedure) + " to " + description;
        ReplyExpectation expectation =
                maxResultsSize < 0 ? ReplyExpectation.SMALL : ReplyExpectation.upTo(maxResultsSize);
        return rdma.call(program, version, procedure, credential, arguments, expectation, timeout)
                .handle((reply, failure) -> {
                    if (failure != null) {
                        throw new CompletionException(translate(failure, what, timeout));
                    }
                    if (!reply.isSuccess()) {
                        throw new CompletionException(new RpcReplyException(reply.header(), what));
                    }
                    try {
                        return results.read(reply.resultsDecoder());
                    } catch (RuntimeException e) {
                        throw new CompletionException(
                                new RpcException("the results of " + what + " do not decode: " + e.getMessage(), e));
                    }
                });
    }

    /** The RPC exception a caller of {@link RpcClient} sees for a failure of the RDMA client. */
    static RpcException translate(Throwable failure, String what, Duration timeout) {
        Throwable t = failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure;
        return switch (t) {
            case RpcRdmaException.Timeout e -> {
                RpcTimeoutException r = new RpcTimeoutException(what, timeout);
                r.initCause(e);
                yield r;
            }
            case RpcRdmaException.ConnectionLost e -> new RpcConnectionException(what + ": " + e.getMessage(), e);
            case RpcRdmaException e -> new RpcException(what + ": " + e.getMessage(), e);
            case org.panamardma.xdr.XdrException e ->
                new RpcException("the arguments of " + what + " do not encode: " + e.getMessage(), e);
            default -> new RpcException(what + " failed: " + t, t);
        };
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        rdma.close();
    }

    @Override
    public String toString() {
        return description;
    }
}
