package org.panamardma.nfs;

import java.util.ArrayList;
import java.util.List;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

/**
 * The port mapper, version 2 (RFC 1833 section 3), and rpcbind version 4 (RFC 1833 section 2), once for both
 * sides: numbers, the {@code mapping} and {@code rpcb} types and their XDR, universal addresses. Used by
 * {@link PortmapClient} to find services and by the server to register its own with the host's rpcbind.
 */
public final class Portmap {
    /** The port mapper / rpcbind program number. */
    public static final int PROGRAM = 100000;
    /** The well-known port. */
    public static final int PORT = 111;

    /** Port mapper version 2 (RFC 1833 section 3): program, version and protocol to a port. */
    public static final int PMAP_VERSION = 2;
    /** rpcbind version 4 (RFC 1833 section 2): program and version to a universal address, per netid. */
    public static final int RPCB_VERSION = 4;
    /**
     * PMAPPROC_SET (RFC 1833 section 3.2): registers a program's port (rpcbind daemons take it from local callers only).
     */
    public static final int PMAPPROC_SET = 1;
    /** PMAPPROC_UNSET: removes a program version's registrations. */
    public static final int PMAPPROC_UNSET = 2;
    /** PMAPPROC_GETPORT: the port of a program, version and protocol; 0 if not registered. */
    public static final int PMAPPROC_GETPORT = 3;
    /** PMAPPROC_DUMP: every registration. */
    public static final int PMAPPROC_DUMP = 4;
    /** rpcbind version 4's GETADDR (RFC 1833 section 2.2.1). */
    public static final int RPCBPROC_GETADDR = 3;
    /** {@code IPPROTO_TCP}, the {@code prot} of a mapping. */
    public static final int IPPROTO_TCP = 6;
    /** {@code IPPROTO_UDP}. */
    public static final int IPPROTO_UDP = 17;

    private Portmap() {}

    /**
     * A port mapper {@code mapping} (RFC 1833 section 3.1).
     *
     * @param program the program number (unsigned 32-bit)
     * @param version its version
     * @param protocol {@link #IPPROTO_TCP} or {@link #IPPROTO_UDP}
     * @param port the port, 0 in a GETPORT query
     */
    public record Mapping(long program, long version, int protocol, int port) {}

    /**
     * {@code mapping}: four unsigned ints.
     *
     * @param m the mapping; port 0 for a GETPORT query
     * @return the arguments
     */
    public static XdrEncodable mapping(Mapping m) {
        return out -> out.putUnsignedInt(m.program())
                .putUnsignedInt(m.version())
                .putUnsignedInt(m.protocol())
                .putUnsignedInt(m.port());
    }

    /**
     * {@code rpcb} (RFC 1833 section 2.1): program, version, netid, address and owner.
     *
     * @param program the program number
     * @param version its version
     * @param netid the transport ({@code "tcp"}, {@code "rdma"}...)
     * @param address the universal address; empty in a GETADDR query
     * @param owner the owner of the registration; empty in a GETADDR query
     * @return the arguments
     */
    public static XdrEncodable rpcb(int program, int version, String netid, String address, String owner) {
        return out -> out.putInt(program)
                .putInt(version)
                .putString(netid, Integer.MAX_VALUE)
                .putString(address, Integer.MAX_VALUE)
                .putString(owner, Integer.MAX_VALUE);
    }

    /**
     * {@code pmaplist}: a linked list of mappings.
     *
     * @param in positioned after the RPC reply header
     * @return every mapping, in the server's order
     */
    public static List<Mapping> decodeDump(XdrDecoder in) {
        List<Mapping> all = new ArrayList<>();
        while (in.getBoolean()) {
            all.add(new Mapping(in.getUnsignedInt("prog"), in.getUnsignedInt("vers"), in.getInt("prot"), (int)
                    in.getUnsignedInt("port")));
        }
        return all;
    }

    /**
     * The port of a universal address (RFC 1833 section 2.2, RFC 5665 section 5.2.3.3): its last two dot-separated
     * numbers are the port's high and low bytes ({@code "10.77.0.1.8.1"} is port 2049).
     *
     * @param address a universal address such as {@code "10.77.0.1.8.1"}
     * @return the port, 0 to 65535
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
