package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct rdma_conn_param} of {@code <rdma/rdma_cma.h>}: what connect/accept send, what events carry. */
public final class rdma_conn_param {
    private rdma_conn_param() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "rdma_conn_param",
            C_POINTER.withName("private_data"),
            C_U8.withName("private_data_len"),
            C_U8.withName("responder_resources"),
            C_U8.withName("initiator_depth"),
            C_U8.withName("flow_control"),
            C_U8.withName("retry_count"),
            C_U8.withName("rnr_retry_count"),
            C_U8.withName("srq"),
            C_U32.withName("qp_num"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long private_data$OFFSET = CLayouts.offset(LAYOUT, "private_data");
    public static final long private_data_len$OFFSET = CLayouts.offset(LAYOUT, "private_data_len");
    public static final long responder_resources$OFFSET = CLayouts.offset(LAYOUT, "responder_resources");
    public static final long initiator_depth$OFFSET = CLayouts.offset(LAYOUT, "initiator_depth");
    public static final long flow_control$OFFSET = CLayouts.offset(LAYOUT, "flow_control");
    public static final long retry_count$OFFSET = CLayouts.offset(LAYOUT, "retry_count");
    public static final long rnr_retry_count$OFFSET = CLayouts.offset(LAYOUT, "rnr_retry_count");
    public static final long srq$OFFSET = CLayouts.offset(LAYOUT, "srq");
    public static final long qp_num$OFFSET = CLayouts.offset(LAYOUT, "qp_num");
}
