package org.panamardma.nfs.rpc;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.tcp.RpcException;
import org.panamardma.oncrpc.tcp.TcpRpcClient;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

/**
 * {@link RpcTransport} over one TCP connection ({@link TcpRpcClient}). Everything travels inline; WRITE data is
 * still sent from the caller's memory without a copy (TcpRpcClient gathers eligible items), and READ data is copied
 * once, from the reply into the caller's target. Results are decoded on the calling thread, so a READ target may
 * belong to a confined arena.
 */
public final class TcpRpcTransport implements RpcTransport {
    private final TcpRpcClient client;

    private TcpRpcTransport(TcpRpcClient client) {
        this.client = client;
    }

    /**
     * Connects to an RPC server over TCP.
     *
     * @param server the server's address and port
     * @param maxRecordSize the largest call sent and reply accepted; at least the largest READ or WRITE plus 1 KiB
     * @return the connected transport; closing it closes the socket
     * @throws IOException if the connection cannot be made
     */
    public static TcpRpcTransport connect(InetSocketAddress server, int maxRecordSize) throws IOException {
        return new TcpRpcTransport(TcpRpcClient.connect(server, maxRecordSize));
    }

    /** The reserved ports Linux's client binds ({@code xprt_min_resvport} .. {@code xprt_max_resvport}). */
    private static final int RESERVED_LOW = 665;

    private static final int RESERVED_HIGH = 1023;

    /**
     * Connects from a reserved port (below 1024), as Linux's client does by default ({@code resvport}): servers
     * exporting with the {@code secure} option (the default of knfsd and of this project's server) take calls only
     * from such ports. Tries the ports from 1023 down to 665, as the kernel does, skipping those in use. Needs root
     * or CAP_NET_BIND_SERVICE.
     *
     * @param server the server's address and port
     * @param maxRecordSize the largest call sent and reply accepted
     * @return the connected transport
     * @throws java.net.BindException if no reserved port could be bound (no privilege, or all in use)
     */
    public static TcpRpcTransport connectFromReservedPort(InetSocketAddress server, int maxRecordSize)
            throws IOException {
        return connectFromReservedPort(server, null, maxRecordSize);
    }

    /**
     * {@link #connectFromReservedPort(InetSocketAddress, int)} from a given local address ({@code null}: any).
     *
     * @param server the server's address and port
     * @param local the local address to bind, or {@code null} for any
     * @param maxRecordSize the largest call sent and reply accepted
     * @return the connected transport
     * @throws IOException if no reserved port could be bound, or the connection cannot be made
     */
    public static TcpRpcTransport connectFromReservedPort(
            InetSocketAddress server, java.net.InetAddress local, int maxRecordSize) throws IOException {
        IOException last = null;
        for (int port = RESERVED_HIGH; port >= RESERVED_LOW; port--) {
            try {
                return new TcpRpcTransport(
                        TcpRpcClient.connect(server, new InetSocketAddress(local, port), maxRecordSize));
            } catch (java.net.BindException e) {
                last = e;
                if (e.getMessage() != null && e.getMessage().contains("ermission")) {
                    throw e; // not allowed to bind any of them
                }
            }
        }
        throw new java.net.BindException("no reserved port free from " + RESERVED_LOW + " to " + RESERVED_HIGH
                + (last == null ? "" : ": " + last.getMessage()));
    }

    /**
     * Connects with {@link TcpRpcClient#DEFAULT_MAX_RECORD_SIZE} (4 MiB).
     *
     * @param host the server's host name or address
     * @param port the server's TCP port
     * @return the connected transport
     * @throws IOException if the connection cannot be made
     */
    public static TcpRpcTransport connect(String host, int port) throws IOException {
        return connect(new InetSocketAddress(host, port), TcpRpcClient.DEFAULT_MAX_RECORD_SIZE);
    }

    /**
     * Wraps a connected client; closing the transport closes it.
     *
     * @param client a connected client, owned by the transport from now on
     * @return the transport
     */
    public static TcpRpcTransport over(TcpRpcClient client) {
        return new TcpRpcTransport(Objects.requireNonNull(client, "client"));
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
        Objects.requireNonNull(results, "results");
        // TcpRpcClient decodes on its reader thread; take the results undecoded (a slice of the reply's private
        // copy) and decode them here, on the caller's thread, which may own the READ target (a confined arena)
        MemorySegment reply =
                client.invoke(program, version, procedure, credential, arguments, XdrDecoder::rest, timeout);
        try {
            return results.read(new XdrDecoder(reply), ReplyPlacement.INLINE);
        } catch (RuntimeException e) {
            throw new RpcException(
                    "the results of call " + Integer.toUnsignedString(program) + "."
                            + Integer.toUnsignedString(version) + "." + Integer.toUnsignedString(procedure) + " to "
                            + peer()
                            + " do not decode: " + e.getMessage(),
                    e);
        }
    }

    @Override
    public String peer() {
        InetSocketAddress a = client.remoteAddress();
        return "tcp:" + a.getHostString() + ":" + a.getPort();
    }

    @Override
    public void close() {
        client.close();
    }
}
