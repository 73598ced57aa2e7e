package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_context}: an opened device. */
public final class ibv_context {
    private ibv_context() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_context",
            C_POINTER.withName("device"),
            ibv_context_ops.layout().withName("ops"),
            C_INT.withName("cmd_fd"),
            C_INT.withName("async_fd"),
            C_INT.withName("num_comp_vectors"),
            CLayouts.pthreadMutex("mutex"),
            C_POINTER.withName("abi_compat"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long device$OFFSET = CLayouts.offset(LAYOUT, "device");
    public static final long ops$OFFSET = CLayouts.offset(LAYOUT, "ops");
    public static final long ops$alloc_mw$OFFSET = CLayouts.offset(LAYOUT, "ops.alloc_mw");
    public static final long ops$dealloc_mw$OFFSET = CLayouts.offset(LAYOUT, "ops.dealloc_mw");
    public static final long ops$poll_cq$OFFSET = CLayouts.offset(LAYOUT, "ops.poll_cq");
    public static final long ops$req_notify_cq$OFFSET = CLayouts.offset(LAYOUT, "ops.req_notify_cq");
    public static final long ops$post_srq_recv$OFFSET = CLayouts.offset(LAYOUT, "ops.post_srq_recv");
    public static final long ops$post_send$OFFSET = CLayouts.offset(LAYOUT, "ops.post_send");
    public static final long ops$post_recv$OFFSET = CLayouts.offset(LAYOUT, "ops.post_recv");
    public static final long async_fd$OFFSET = CLayouts.offset(LAYOUT, "async_fd");
    public static final long num_comp_vectors$OFFSET = CLayouts.offset(LAYOUT, "num_comp_vectors");
    public static final long abi_compat$OFFSET = CLayouts.offset(LAYOUT, "abi_compat");
}
