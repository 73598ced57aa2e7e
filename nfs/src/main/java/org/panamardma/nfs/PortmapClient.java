package org.panamardma.nfs;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

/**
 * Finds RPC services: the port mapper, version 2 (RFC 1833 section 3: GETPORT, DUMP), and rpcbind version 4
 * (RFC 1833 section 2: GETADDR, universal addresses), both served by Linux's rpcbind on port 111.
 */
public final class PortmapClient {
    /** The port mapper / rpcbind program number. */
    public static final int PROGRAM = 100000;
    /** The well-known port. */
    public static final int PORT = 111;
    public static final int PMAP_VERSION = 2;
    public static final int RPCB_VERSION = 4;
    public static final int PMAPPROC_GETPORT = 3;
    public static final int PMAPPROC_DUMP = 4;
    public static final int RPCBPROC_GETADDR = 3;
    /** {@code IPPROTO_TCP}, the {@code prot} of a mapping. */
    public static final int IPPROTO_TCP = 6;
    /** {@code IPPROTO_UDP}. */
    public static final int IPPROTO_UDP = 17;

    /**
     * A port mapper {@code mapping} (RFC 1833 section 3.1).
     *
     * @param program the program number (unsigned 32-bit)
     * @param version its version
     * @param protocol {@link #IPPROTO_TCP} or {@link #IPPROTO_UDP}
     * @param port the port, 0 in a GETPORT query
     */
    public record Mapping(long program, long version, int protocol, int port) {
    }

    private final RpcTransport transport;
    private final Duration timeout;

    /** @param transport connected to port 111 */
    public PortmapClient(RpcTransport transport, Duration timeout) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * PMAPPROC_GETPORT: the port of a program version.
     *
     * @return the port, or 0 if the program is not registered
     */
    public int getPort(int program, int version, int protocol) throws IOException, InterruptedException {
        long port = transport.call(PROGRAM, PMAP_VERSION, PMAPPROC_GETPORT, OpaqueAuth.NONE,
                mapping(new Mapping(Integer.toUnsignedLong(program), Integer.toUnsignedLong(version), protocol, 0)),
                ReplyReader.of(XdrDecoder::getUnsignedInt), timeout);
        if (port > 65535) {
            throw new IOException("port mapper answered GETPORT with port " + port);
        }
        return (int) port;
    }

    /** PMAPPROC_DUMP: every registration (what {@code rpcinfo -p} shows). */
    public List<Mapping> dump() throws IOException, InterruptedException {
        return transport.call(PROGRAM, PMAP_VERSION, PMAPPROC_DUMP, OpaqueAuth.NONE, XdrEncodable.VOID,
                ReplyReader.of(PortmapClient::decodeDump), timeout);
    }

    /**
     * RPCBPROC_GETADDR (rpcbind version 4): the universal address of a program version on a transport.
     *
     * @param netid the transport, {@code "tcp"}, {@code "udp"}, {@code "tcp6"}...
     * @return the universal address, empty if not registered
     */
    public String getAddress(int program, int version, String netid) throws IOException, InterruptedException {
        return transport.call(PROGRAM, RPCB_VERSION, RPCBPROC_GETADDR, OpaqueAuth.NONE,
                rpcb(program, version, netid, "", ""), ReplyReader.of(in -> in.getString(Integer.MAX_VALUE)),
                timeout);
    }

    /** {@code mapping}: four unsigned ints. */
    public static XdrEncodable mapping(Mapping m) {
        return out -> out.putUnsignedInt(m.program()).putUnsignedInt(m.version()).putUnsignedInt(m.protocol())
                .putUnsignedInt(m.port());
    }

    /** {@code rpcb} (RFC 1833 section 2.1): program, version, netid, address and owner. */
    public static XdrEncodable rpcb(int program, int version, String netid, String address, String owner) {
        return out -> out.putInt(program).putInt(version).putString(netid, Integer.MAX_VALUE)
                .putString(address, Integer.MAX_VALUE).putString(owner, Integer.MAX_VALUE);
    }

    /** {@code pmaplist}: a linked list of mappings. */
    public static List<Mapping> decodeDump(XdrDecoder in) {
        List<Mapping> all = new ArrayList<>();
        while (in.getBoolean()) {
            all.add(new Mapping(in.getUnsignedInt("prog"), in.getUnsignedInt("vers"), in.getInt("prot"),
                    (int) in.getUnsignedInt("port")));
        }
        return all;
    }

    /**
     * The port of a universal address (RFC 1833 section 2.2, RFC 5665 section 5.2.3.3): its last two dot-separated
     * numbers are the port's high and low bytes ({@code "10.77.0.1.8.1"} is port 2049).
     *
     * @throws IllegalArgumentException if {@code address} does not end in two byte values
     */
    public static int portOf(String address) {
        int last = address.lastIndexOf('.');
        int previous = last > 0 ? address.lastIndexOf('.', last - 1) : -1;
        if (previous < 0) {
            throw new IllegalArgumentException("not a universal address: \"" + address + "\"");
        }
        try {
            int high = Integer.parseInt(address.substring(previous + 1, last));
            int low = Integer.parseInt(address.substring(last + 1));
            if (high < 0 || high > 255 || low < 0 || low > 255) {
                throw new IllegalArgumentException("port bytes out of range in \"" + address + "\"");
            }
            return high << 8 | low;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a universal address: \"" + address + "\"", e);
        }
    }
}
