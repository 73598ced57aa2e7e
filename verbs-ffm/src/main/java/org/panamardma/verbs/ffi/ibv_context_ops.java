package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_context_ops}: the function pointers behind the {@code static inline} data-path verbs. */
public final class ibv_context_ops {
    private ibv_context_ops() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_context_ops",
            C_POINTER.withName("_compat_query_device"),
            C_POINTER.withName("_compat_query_port"),
            C_POINTER.withName("_compat_alloc_pd"),
            C_POINTER.withName("_compat_dealloc_pd"),
            C_POINTER.withName("_compat_reg_mr"),
            C_POINTER.withName("_compat_rereg_mr"),
            C_POINTER.withName("_compat_dereg_mr"),
            C_POINTER.withName("alloc_mw"),
            C_POINTER.withName("bind_mw"),
            C_POINTER.withName("dealloc_mw"),
            C_POINTER.withName("_compat_create_cq"),
            C_POINTER.withName("poll_cq"),
            C_POINTER.withName("req_notify_cq"),
            C_POINTER.withName("_compat_cq_event"),
            C_POINTER.withName("_compat_resize_cq"),
            C_POINTER.withName("_compat_destroy_cq"),
            C_POINTER.withName("_compat_create_srq"),
            C_POINTER.withName("_compat_modify_srq"),
            C_POINTER.withName("_compat_query_srq"),
            C_POINTER.withName("_compat_destroy_srq"),
            C_POINTER.withName("post_srq_recv"),
            C_POINTER.withName("_compat_create_qp"),
            C_POINTER.withName("_compat_query_qp"),
            C_POINTER.withName("_compat_modify_qp"),
            C_POINTER.withName("_compat_destroy_qp"),
            C_POINTER.withName("post_send"),
            C_POINTER.withName("post_recv"),
            C_POINTER.withName("_compat_create_ah"),
            C_POINTER.withName("_compat_destroy_ah"),
            C_POINTER.withName("_compat_attach_mcast"),
            C_POINTER.withName("_compat_detach_mcast"),
            C_POINTER.withName("_compat_async_event"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long poll_cq$OFFSET = CLayouts.offset(LAYOUT, "poll_cq");
    public static final long req_notify_cq$OFFSET = CLayouts.offset(LAYOUT, "req_notify_cq");
    public static final long post_srq_recv$OFFSET = CLayouts.offset(LAYOUT, "post_srq_recv");
    public static final long post_send$OFFSET = CLayouts.offset(LAYOUT, "post_send");
    public static final long post_recv$OFFSET = CLayouts.offset(LAYOUT, "post_recv");
}
