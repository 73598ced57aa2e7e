package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct rdma_cm_id} of {@code <rdma/rdma_cma.h>}: allocated and owned by librdmacm; read only. */
public final class rdma_cm_id {
    private rdma_cm_id() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "rdma_cm_id",
            C_POINTER.withName("verbs"),
            C_POINTER.withName("channel"),
            C_POINTER.withName("context"),
            C_POINTER.withName("qp"),
            rdma_route.layout().withName("route"),
            C_INT.withName("ps"),
            C_U8.withName("port_num"),
            C_POINTER.withName("event"),
            C_POINTER.withName("send_cq_channel"),
            C_POINTER.withName("send_cq"),
            C_POINTER.withName("recv_cq_channel"),
            C_POINTER.withName("recv_cq"),
            C_POINTER.withName("srq"),
            C_POINTER.withName("pd"),
            C_INT.withName("qp_type"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long verbs$OFFSET = CLayouts.offset(LAYOUT, "verbs");
    public static final long channel$OFFSET = CLayouts.offset(LAYOUT, "channel");
    public static final long qp$OFFSET = CLayouts.offset(LAYOUT, "qp");
    public static final long route$OFFSET = CLayouts.offset(LAYOUT, "route");
    public static final long route$addr$OFFSET = CLayouts.offset(LAYOUT, "route.addr");
    public static final long ps$OFFSET = CLayouts.offset(LAYOUT, "ps");
    public static final long port_num$OFFSET = CLayouts.offset(LAYOUT, "port_num");
    public static final long qp_type$OFFSET = CLayouts.offset(LAYOUT, "qp_type");
}
