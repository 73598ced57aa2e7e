package org.panamardma.verbs.ffi;

import java.lang.foreign.StructLayout;

/**
 * {@code struct rdma_addr} of {@code <rdma/rdma_cma.h>}: the source and destination socket addresses (two anonymous
 * unions of the sockaddr kinds) and the resolved IB addresses.
 */
public final class rdma_addr {
    private rdma_addr() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "rdma_addr",
            CLayouts.union(
                            null,
                            sockaddr.layout().withName("src_addr"),
                            sockaddr_in.layout().withName("src_sin"),
                            sockaddr_in6.layout().withName("src_sin6"),
                            sockaddr_storage.layout().withName("src_storage"))
                    .withName("$anon0"),
            CLayouts.union(
                            null,
                            sockaddr.layout().withName("dst_addr"),
                            sockaddr_in.layout().withName("dst_sin"),
                            sockaddr_in6.layout().withName("dst_sin6"),
                            sockaddr_storage.layout().withName("dst_storage"))
                    .withName("$anon1"),
            CLayouts.union(null, rdma_ib_addr.layout().withName("ibaddr")).withName("addr"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    /** {@code src_addr}/{@code src_storage}: the local address (sockaddr_in or sockaddr_in6 by its family). */
    public static final long $anon0$src_storage$OFFSET = CLayouts.offset(LAYOUT, "$anon0.src_storage");
    /** {@code dst_addr}/{@code dst_storage}: the peer address. */
    public static final long $anon1$dst_storage$OFFSET = CLayouts.offset(LAYOUT, "$anon1.dst_storage");

    public static final long addr$ibaddr$OFFSET = CLayouts.offset(LAYOUT, "addr.ibaddr");
}
