package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct rdma_ib_addr} of {@code <rdma/rdma_cma.h>}: the GIDs and P_Key rdma_cm resolved. */
public final class rdma_ib_addr {
    private rdma_ib_addr() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "rdma_ib_addr",
            ibv_gid.layout().withName("sgid"),
            ibv_gid.layout().withName("dgid"),
            C_U16.withName("pkey"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long sgid$OFFSET = CLayouts.offset(LAYOUT, "sgid");
    public static final long dgid$OFFSET = CLayouts.offset(LAYOUT, "dgid");
}
