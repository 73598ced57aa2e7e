package org.panamardma.nfs.rpc;

import java.io.IOException;
import java.time.Duration;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.xdr.XdrEncodable;

/**
 * What an ONC RPC client program (NFS, MOUNT, rpcbind) needs from a transport: send one call, wait for its
 * results. Transport-neutral on purpose: {@link TcpRpcTransport} carries calls over TCP with record marking
 * (RFC 5531 section 11); an RPC-over-RDMA transport (RFC 8166) plugs in behind the same interface.
 *
 * <p>Bulk data travels through the two direct-data-placement hooks, so that RPC-over-RDMA can move it by RDMA
 * instead of copying it through inline messages (RFC 8166 section 3.4.2; RFC 8267 section 4 names which NFSv3
 * items are eligible: the data of WRITE arguments and of READ results):
 * <ul>
 *   <li>arguments write eligible items with {@link org.panamardma.xdr.XdrEncoder#putEligibleOpaque}; the transport
 *       decides, through the encoder's {@link org.panamardma.xdr.DataPlacement}, whether each goes inline or in a
 *       Read chunk;
 *   <li>results read eligible items through the {@link ReplyPlacement} handed to {@link ReplyReader#read}, and a
 *       {@link ReplyReader} may name the memory such an item should land in ({@link ReplyReader#placementTarget()}),
 *       which RPC-over-RDMA offers to the server as a Write chunk.
 * </ul>
 *
 * <p>Implementations are thread-safe: many calls may be outstanding at once.
 */
public interface RpcTransport extends AutoCloseable {
    /**
     * Sends a call and waits for its results.
     *
     * @param <T> the results type
     * @param program the RPC program number
     * @param version the program version
     * @param procedure the procedure number
     * @param credential the credential (AUTH_NONE or AUTH_SYS); the verifier is AUTH_NONE
     * @param arguments encodes the procedure's arguments; may run more than once (a transport may re-encode into a
     *                  larger buffer), so it must be repeatable
     * @param results decodes the results of a SUCCESS reply
     * @param timeout how long to wait for the reply
     * @return the decoded results
     * @throws IOException if the call failed: the server's RPC-level error, a timeout, a lost connection, arguments
     *                     that do not encode or results that do not decode (the TCP transport throws
     *                     {@link org.panamardma.oncrpc.tcp.RpcException} and its subclasses)
     * @throws InterruptedException if interrupted while waiting
     */
    <T> T call(
            int program,
            int version,
            int procedure,
            OpaqueAuth credential,
            XdrEncodable arguments,
            ReplyReader<T> results,
            Duration timeout)
            throws IOException, InterruptedException;

    /** {@return the server, for messages (host and port, or a device and address)} */
    String peer();

    /** Closes the transport; calls still waiting fail. */
    @Override
    void close();
}
