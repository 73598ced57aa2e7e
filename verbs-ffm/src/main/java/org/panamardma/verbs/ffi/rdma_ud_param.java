package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct rdma_ud_param} of {@code <rdma/rdma_cma.h>}: the UD variant of an event's parameters. */
public final class rdma_ud_param {
    private rdma_ud_param() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "rdma_ud_param",
            C_POINTER.withName("private_data"),
            C_U8.withName("private_data_len"),
            ibv_ah_attr.layout().withName("ah_attr"),
            C_U32.withName("qp_num"),
            C_U32.withName("qkey"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long private_data$OFFSET = CLayouts.offset(LAYOUT, "private_data");
    public static final long private_data_len$OFFSET = CLayouts.offset(LAYOUT, "private_data_len");
    public static final long qp_num$OFFSET = CLayouts.offset(LAYOUT, "qp_num");
    public static final long qkey$OFFSET = CLayouts.offset(LAYOUT, "qkey");
}
