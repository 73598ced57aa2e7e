package org.panamardma.verbs.cm;

import org.panamardma.verbs.TransportType;

/**
 * How many bytes of private data a connect, accept or reject can carry, by transport. Longer private data is refused
 * before the call with an {@link IllegalArgumentException} naming the limit and its reason, instead of an EINVAL
 * from the kernel (or, on iWARP, a connection that fails on the peer).
 *
 * <p><b>InfiniBand and RoCE</b> (the IB CM's MADs, Linux {@code include/rdma/ib_cm.h} {@code enum ib_cm_data_size};
 * {@code drivers/infiniband/core/cma.c}):
 * <ul>
 *   <li>connect: 56 = {@code IB_CM_REQ_PRIVATE_DATA_SIZE} (92) minus the 36-byte {@code struct cma_hdr} the CMA puts
 *       in front of it for IP-addressed ids ({@code cma_user_data_offset}, {@code cma_connect_ib});</li>
 *   <li>accept: 196 = {@code IB_CM_REP_PRIVATE_DATA_SIZE};</li>
 *   <li>reject: 148 = {@code IB_CM_REJ_PRIVATE_DATA_SIZE} ({@code ib_send_cm_rej} refuses more).</li>
 * </ul>
 * The receiver always sees the full field (56, 196 or 148 bytes), the sender's data followed by zeros.
 *
 * <p><b>iWARP</b>: RFC 5044 (MPA) allows 512 bytes, but Linux carries at most {@code RDMA_MAX_PRIVATE_DATA} = 256
 * ({@code include/uapi/rdma/rdma_user_cm.h}; siw's {@code MPA_MAX_PRIVDATA} in {@code drivers/infiniband/sw/siw/
 * iwarp.h} is the same), and with MPA revision 2 (siw's default, "enhanced connection establishment") the 4-byte
 * IRD/ORD block {@code struct mpa_v2_data} travels in the same field ({@code siw_accept} allows
 * {@code MPA_MAX_PRIVDATA - sizeof(struct mpa_v2_data)}). Measured on siw (Linux 6.12, the testbed): 251 bytes
 * pass both ways; with 252 a connect fails at the client with REJECTED -ECONNRESET (the server's siw drops the MPA
 * request, its listener sees nothing) and an accept "succeeds" at the server while the client gets CONNECT_ERROR
 * -EINVAL. Hence 251 for connect, accept and reject. The receiver sees exactly the bytes sent.
 *
 * <p>librdmacm itself carries at most 255 ({@code private_data_len} is a {@code uint8_t}): {@link #LIBRDMACM_MAX}.
 */
public final class PrivateDataLimits {
    private PrivateDataLimits() {}

    /** {@code uint8_t private_data_len} of {@code struct rdma_conn_param} and {@code rdma_reject}. */
    public static final int LIBRDMACM_MAX = 255;

    /** InfiniBand/RoCE connect: {@code IB_CM_REQ_PRIVATE_DATA_SIZE} less the CMA header (see above). */
    public static final int IB_CONNECT = 92 - 36;
    /** InfiniBand/RoCE accept: {@code IB_CM_REP_PRIVATE_DATA_SIZE}. */
    public static final int IB_ACCEPT = 196;
    /** InfiniBand/RoCE reject: {@code IB_CM_REJ_PRIVATE_DATA_SIZE}. */
    public static final int IB_REJECT = 148;
    /** 256 - 4 (MPA v2 IRD/ORD) - 1: the most siw was measured to carry (see above). */
    public static final int IWARP = 251;

    /** What the operation is. */
    public enum Operation {
        /** rdma_connect's private data. */
        CONNECT,
        /** rdma_accept's private data. */
        ACCEPT,
        /** rdma_reject's private data. */
        REJECT
    }

    /**
     * The limit of {@code operation} on {@code transport} (null transport: librdmacm's own limit).
     *
     * @param transport the device's transport, or null when not known yet
     * @param operation which verb carries the private data
     * @return the most bytes of private data the operation may carry
     */
    public static int limit(TransportType transport, Operation operation) {
        if (transport == TransportType.IWARP) {
            return IWARP;
        }
        if (transport == TransportType.INFINIBAND) {
            return switch (operation) {
                case CONNECT -> IB_CONNECT;
                case ACCEPT -> IB_ACCEPT;
                case REJECT -> IB_REJECT;
            };
        }
        return LIBRDMACM_MAX;
    }

    /** Throws {@link IllegalArgumentException} if {@code length} bytes exceed the limit. */
    static void check(TransportType transport, String device, Operation operation, int length) {
        int limit = limit(transport, operation);
        if (length > limit) {
            throw new IllegalArgumentException(operation.name().toLowerCase(java.util.Locale.ROOT) + " with " + length
                    + " bytes of private data on " + device + " (" + transport + "): at most " + limit + " fit ("
                    + reason(transport, operation) + ")");
        }
    }

    private static String reason(TransportType transport, Operation operation) {
        if (transport == TransportType.IWARP) {
            return "Linux's RDMA_MAX_PRIVATE_DATA 256 less the 4-byte MPA v2 IRD/ORD header, and siw refuses 252";
        }
        if (transport == TransportType.INFINIBAND) {
            return switch (operation) {
                case CONNECT -> "the IB CM REQ's 92 bytes minus the 36-byte rdma_cm header";
                case ACCEPT -> "the IB CM REP's private data";
                case REJECT -> "the IB CM REJ's private data";
            };
        }
        return "librdmacm's uint8_t private_data_len";
    }
}
