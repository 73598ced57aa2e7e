package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct rdma_route} of {@code <rdma/rdma_cma.h>}. */
public final class rdma_route {
    private rdma_route() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "rdma_route",
            rdma_addr.layout().withName("addr"),
            C_POINTER.withName("path_rec"),
            C_INT.withName("num_paths"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long addr$OFFSET = CLayouts.offset(LAYOUT, "addr");
    public static final long num_paths$OFFSET = CLayouts.offset(LAYOUT, "num_paths");
}
