package org.panamardma.nfs;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

/**
 * Finds RPC services: the port mapper, version 2 (RFC 1833 section 3: GETPORT, DUMP), and rpcbind version 4
 * (RFC 1833 section 2: GETADDR, universal addresses), both served by Linux's rpcbind on port 111. The protocols'
 * numbers and types are {@link Portmap}'s, shared with the server.
 */
public final class PortmapClient {
    private static final int PROGRAM = Portmap.PROGRAM;

    private final RpcTransport transport;
    private final Duration timeout;

    /**
     * A client making every call with AUTH_NONE and {@code timeout}. It does not own the transport: closing it is the
     * caller's.
     *
     * @param transport connected to port 111
     * @param timeout the timeout of every call
     */
    public PortmapClient(RpcTransport transport, Duration timeout) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * PMAPPROC_GETPORT: the port of a program version.
     *
     * @param program the program number
     * @param version the program version
     * @param protocol {@link Portmap#IPPROTO_TCP} or {@link Portmap#IPPROTO_UDP}
     * @return the port, or 0 if the program is not registered
     * @throws IOException if the answer is not a port (above 65535), or the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public int getPort(int program, int version, int protocol) throws IOException, InterruptedException {
        long port = transport.call(
                PROGRAM,
                Portmap.PMAP_VERSION,
                Portmap.PMAPPROC_GETPORT,
                OpaqueAuth.NONE,
                Portmap.mapping(new Portmap.Mapping(
                        Integer.toUnsignedLong(program), Integer.toUnsignedLong(version), protocol, 0)),
                ReplyReader.of(XdrDecoder::getUnsignedInt),
                timeout);
        if (port > 65535) {
            throw new IOException("port mapper answered GETPORT with port " + port);
        }
        return (int) port;
    }

    /**
     * Portmap.PMAPPROC_DUMP: every registration (what {@code rpcinfo -p} shows).
     *
     * @return every registration
     * @throws IOException an {@code RpcException} when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public List<Portmap.Mapping> dump() throws IOException, InterruptedException {
        return transport.call(
                PROGRAM,
                Portmap.PMAP_VERSION,
                Portmap.PMAPPROC_DUMP,
                OpaqueAuth.NONE,
                XdrEncodable.VOID,
                ReplyReader.of(Portmap::decodeDump),
                timeout);
    }

    /**
     * RPCBPROC_GETADDR (rpcbind version 4): the universal address of a program version on a transport.
     *
     * @param program the program number
     * @param version the program version
     * @param netid the transport, {@code "tcp"}, {@code "udp"}, {@code "tcp6"}...
     * @return the universal address, empty if not registered
     * @throws IOException an {@code RpcException} when the call fails in RPC or in the transport
     * @throws InterruptedException if interrupted while waiting for the reply
     */
    public String getAddress(int program, int version, String netid) throws IOException, InterruptedException {
        return transport.call(
                PROGRAM,
                Portmap.RPCB_VERSION,
                Portmap.RPCBPROC_GETADDR,
                OpaqueAuth.NONE,
                Portmap.rpcb(program, version, netid, "", ""),
                ReplyReader.of(in -> in.getString(Integer.MAX_VALUE)),
                timeout);
    }
}
