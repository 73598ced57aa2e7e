package org.panamardma.nfs.rpc;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.tcp.RpcException;
import org.panamardma.oncrpc.tcp.RpcReplyException;
import org.panamardma.rpcrdma.client.ReplyExpectation;
import org.panamardma.rpcrdma.client.RpcRdmaClient;
import org.panamardma.rpcrdma.client.RpcRdmaClientOptions;
import org.panamardma.rpcrdma.client.RpcRdmaReply;
import org.panamardma.verbs.RdmaException;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrException;

/**
 * {@link RpcTransport} over RPC-over-RDMA version 1 ({@link RpcRdmaClient}, RFC 8166): the transport NFS uses on
 * port 20049 (RFC 8267). WRITE data is taken from the caller's memory as a Read chunk when the call does not fit
 * inline; READ data is written by the server into {@link ReplyReader#placementTarget()} through the Write list;
 * {@link ReplyReader#maxResultsSize()} decides whether a Reply chunk is offered. MOUNT and the port mapper have no
 * RDMA binding and stay on TCP ({@link TcpRpcTransport}).
 *
 * <p>Results are decoded on the calling thread, so a READ target may belong to a confined arena.
 */
public final class RdmaRpcTransport implements RpcTransport {
    private final RpcRdmaClient client;

    private RdmaRpcTransport(RpcRdmaClient client) {
        this.client = client;
    }

    /**
     * Connects to an NFS server's RDMA port (20049 for knfsd).
     *
     * @param server the server's address and RDMA port
     * @param options the RPC-over-RDMA client's settings (credits, inline thresholds, timeouts)
     * @return the connected transport; closing it disconnects and frees the client's RDMA resources
     * @throws RdmaException if the RDMA connection cannot be set up (address or route resolution, a refused or
     *        timed-out connect, no device)
     */
    public static RdmaRpcTransport connect(InetSocketAddress server, RpcRdmaClientOptions options)
            throws RdmaException {
        return new RdmaRpcTransport(RpcRdmaClient.connect(server, options));
    }

    /**
     * Wraps a connected client; closing the transport closes it.
     *
     * @param client a connected RPC-over-RDMA client, owned by the transport from now on
     * @return the transport
     */
    public static RdmaRpcTransport over(RpcRdmaClient client) {
        return new RdmaRpcTransport(Objects.requireNonNull(client, "client"));
    }

    /** {@return the RPC-over-RDMA client underneath (negotiated values, credits)} */
    public RpcRdmaClient client() {
        return client;
    }

    @Override
    public <T> T call(
            int program,
            int version,
            int procedure,
            OpaqueAuth credential,
            XdrEncodable arguments,
            ReplyReader<T> results,
            Duration timeout)
            throws IOException, InterruptedException {
        return decode(
                program,
                version,
                procedure,
                results,
                await(callAsync(program, version, procedure, credential, arguments, results, timeout), timeout));
    }

    /**
     * Sends a call without waiting; {@link #decode} its reply after. For many concurrent calls from one thread
     * (the credit window queues those beyond the server's grant).
     *
     * @param <T> the results type
     * @param program the program number
     * @param version the program version
     * @param procedure the procedure number
     * @param credential the credential (the verifier is AUTH_NONE)
     * @param arguments encodes the arguments; its DDP-eligible data may go as a Read chunk, so its memory must stay
     *        alive until the future completes
     * @param results gives the Write chunk target and reply size hint; decode with it afterwards
     * @param timeout how long the call may wait for its reply
     * @return the reply, completing on the transport's thread; pass it to {@link #decode}
     */
    public <T> CompletableFuture<RpcRdmaReply> callAsync(
            int program,
            int version,
            int procedure,
            OpaqueAuth credential,
            XdrEncodable arguments,
            ReplyReader<T> results,
            Duration timeout) {
        Objects.requireNonNull(results, "results");
        MemorySegment target = results.placementTarget();
        ReplyExpectation expectation =
                new ReplyExpectation(results.maxResultsSize(), target == null ? List.of() : List.of(target));
        return client.call(program, version, procedure, credential, arguments, expectation, timeout);
    }

    /**
     * Waits for a reply of {@link #callAsync}, a little longer than the call's own timeout.
     *
     * @param reply the future of {@link #callAsync}
     * @param timeout the call's timeout; the wait ends 5 seconds after it at the latest
     * @return the reply
     * @throws IOException the call's own failure, or an {@code RpcException} if no reply came in time
     * @throws InterruptedException if interrupted while waiting (the call stays pending until its own timeout)
     */
    public static RpcRdmaReply await(CompletableFuture<RpcRdmaReply> reply, Duration timeout)
            throws IOException, InterruptedException {
        try {
            return reply.get(timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            throw new RpcException("call failed: " + cause, cause);
        } catch (TimeoutException e) {
            reply.cancel(false);
            throw new RpcException("no reply within " + timeout + " (and the transport's timer did not fire)", e);
        }
    }

    /**
     * Decodes a reply's results with the placement the reply reports; RPC-level errors become exceptions.
     *
     * @param <T> the results type
     * @param program the program number, for the error message
     * @param version the program version, for the error message
     * @param procedure the procedure number, for the error message
     * @param results decodes the results, reading placed data where the reply reports it
     * @param reply the reply of {@link #callAsync}
     * @return the decoded results
     * @throws IOException an {@link org.panamardma.oncrpc.tcp.RpcReplyException} for an RPC-level error status, an
     *        {@code RpcException} if the results do not decode
     */
    public <T> T decode(int program, int version, int procedure, ReplyReader<T> results, RpcRdmaReply reply)
            throws IOException {
        String call = Integer.toUnsignedString(program) + "." + Integer.toUnsignedString(version) + "."
                + Integer.toUnsignedString(procedure) + " to " + peer();
        return decodeResults(results, reply, call);
    }

    /** {@link #decode} without the transport: for tests. */
    static <T> T decodeResults(ReplyReader<T> results, RpcRdmaReply reply, String call) throws IOException {
        if (!reply.isSuccess()) {
            throw new RpcReplyException(reply.header(), call);
        }
        List<RpcRdmaReply.Placement> placements = reply.placements();
        ReplyPlacement placement =
                placements.isEmpty() || !placements.getFirst().writeChunk()
                        ? ReplyPlacement.INLINE
                        : placed(placements.getFirst());
        XdrDecoder in = reply.resultsDecoder();
        try {
            T value = results.read(in, placement);
            if (!in.atEnd()) {
                throw new XdrException(
                        XdrException.Reason.INVALID_VALUE,
                        in.position(),
                        in.remaining() + " bytes left after the results");
            }
            return value;
        } catch (RuntimeException e) {
            throw new RpcException("the results of call " + call + " do not decode: " + e.getMessage(), e);
        }
    }

    /**
     * The item was offered a Write chunk: its length word is in the reduced stream, its bytes (no roundup) are in
     * the target (RFC 8166 section 3.4.6). The server must have written at least that many bytes.
     */
    private static ReplyPlacement placed(RpcRdmaReply.Placement p) {
        return (in, maxLength) -> {
            long at = in.position();
            int length = in.getLength(maxLength, "placed data");
            if (length > p.length()) {
                throw new XdrException(
                        XdrException.Reason.INVALID_VALUE,
                        at,
                        "length word " + length + " exceeds the " + p.length() + " bytes written to the Write chunk");
            }
            return p.target().asSlice(0, length);
        };
    }

    @Override
    public String peer() {
        return "rdma:"
                + client.peerAddress()
                        .map(a -> a.getAddress().getHostAddress() + ":" + a.getPort())
                        .orElse("?") + " on " + client.deviceName();
    }

    @Override
    public void close() {
        client.close();
    }
}
