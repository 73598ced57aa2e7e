package org.panamardma.oncrpc;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrReader;

/**
 * An ONC RPC client over some connection, whatever the transport: {@link org.panamardma.oncrpc.tcp.TcpRpcClient}
 * (TCP with record marking) or an RPC-over-RDMA client adapted to this interface (in the {@code rpcrdma.client}
 * package, which also has the factory choosing one by URI). Code written against it runs over either.
 *
 * <p>Every implementation fails a call's future with the same exceptions, those of
 * {@link org.panamardma.oncrpc.tcp.RpcException} (whatever the transport: the package name is historical):
 * {@code RpcReplyException} for an error status from the server, {@code RpcTimeoutException} when no reply came in
 * time, {@code RpcConnectionException} when the connection closed or broke first (every pending call fails with it,
 * later calls fail at once), a plain {@code RpcException} when the arguments do not encode, the results do not
 * decode or the transport refused the call (its own exception is the cause).
 */
public interface RpcClient extends AutoCloseable {
    /**
     * Sends a call and returns at once with its future.
     *
     * @param <T> the results type
     * @param program the program number
     * @param version the program version
     * @param procedure the procedure number
     * @param credential the credential (the verifier is AUTH_NONE)
     * @param arguments encodes the arguments; may run more than once, so it must be repeatable
     * @param results decodes the results of a SUCCESS reply
     * @param timeout how long to wait for the reply
     * @return the decoded results, or the exceptions the class comment lists
     */
    <T> CompletableFuture<T> call(
            int program,
            int version,
            int procedure,
            OpaqueAuth credential,
            XdrEncodable arguments,
            XdrReader<? extends T> results,
            Duration timeout);

    /**
     * {@link #call}, waiting for the results.
     *
     * @param <T> the results type
     * @param program the program number
     * @param version the program version
     * @param procedure the procedure number
     * @param credential the credential (the verifier is AUTH_NONE)
     * @param arguments encodes the arguments; may run more than once, so it must be repeatable
     * @param results decodes the results of a SUCCESS reply
     * @param timeout how long to wait for the reply; the wait ends then at the latest
     * @return the decoded results
     * @throws IOException an {@link org.panamardma.oncrpc.tcp.RpcException} as the class comment lists
     * @throws InterruptedException if interrupted while waiting (the call stays pending until its timeout)
     */
    default <T> T invoke(
            int program,
            int version,
            int procedure,
            OpaqueAuth credential,
            XdrEncodable arguments,
            XdrReader<? extends T> results,
            Duration timeout)
            throws IOException, InterruptedException {
        try {
            return call(program, version, procedure, credential, arguments, results, timeout)
                    .get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException(e.getCause().toString(), e.getCause());
        } catch (CancellationException e) {
            throw new IOException("call cancelled", e);
        }
    }

    /** {@return a short description of the peer and transport, for messages: {@code tcp://host:port}} */
    String describe();

    /** Closes the connection; pending calls fail with a connection exception. Idempotent. */
    @Override
    void close();
}
