package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_qp_init_attr}: what rdma_cm's {@code rdma_create_qp} takes. */
public final class ibv_qp_init_attr {
    private ibv_qp_init_attr() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_qp_init_attr",
            C_POINTER.withName("qp_context"),
            C_POINTER.withName("send_cq"),
            C_POINTER.withName("recv_cq"),
            C_POINTER.withName("srq"),
            ibv_qp_cap.layout().withName("cap"),
            C_INT.withName("qp_type"),
            C_INT.withName("sq_sig_all"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long send_cq$OFFSET = CLayouts.offset(LAYOUT, "send_cq");
    public static final long recv_cq$OFFSET = CLayouts.offset(LAYOUT, "recv_cq");
    public static final long srq$OFFSET = CLayouts.offset(LAYOUT, "srq");
    public static final long cap$OFFSET = CLayouts.offset(LAYOUT, "cap");
    public static final long qp_type$OFFSET = CLayouts.offset(LAYOUT, "qp_type");
    public static final long sq_sig_all$OFFSET = CLayouts.offset(LAYOUT, "sq_sig_all");
}
