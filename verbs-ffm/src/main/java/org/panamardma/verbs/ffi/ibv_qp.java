package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_qp}. */
public final class ibv_qp {
    private ibv_qp() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_qp",
            C_POINTER.withName("context"),
            C_POINTER.withName("qp_context"),
            C_POINTER.withName("pd"),
            C_POINTER.withName("send_cq"),
            C_POINTER.withName("recv_cq"),
            C_POINTER.withName("srq"),
            C_U32.withName("handle"),
            C_U32.withName("qp_num"),
            C_INT.withName("state"),
            C_INT.withName("qp_type"),
            CLayouts.pthreadMutex("mutex"),
            CLayouts.pthreadCond("cond"),
            C_U32.withName("events_completed"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long context$OFFSET = CLayouts.offset(LAYOUT, "context");
    public static final long qp_num$OFFSET = CLayouts.offset(LAYOUT, "qp_num");
    public static final long state$OFFSET = CLayouts.offset(LAYOUT, "state");
    public static final long qp_type$OFFSET = CLayouts.offset(LAYOUT, "qp_type");
}
