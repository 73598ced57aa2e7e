package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_cq}. */
public final class ibv_cq {
    private ibv_cq() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_cq",
            C_POINTER.withName("context"),
            C_POINTER.withName("channel"),
            C_POINTER.withName("cq_context"),
            C_U32.withName("handle"),
            C_INT.withName("cqe"),
            CLayouts.pthreadMutex("mutex"),
            CLayouts.pthreadCond("cond"),
            C_U32.withName("comp_events_completed"),
            C_U32.withName("async_events_completed"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long context$OFFSET = CLayouts.offset(LAYOUT, "context");
    public static final long cqe$OFFSET = CLayouts.offset(LAYOUT, "cqe");
}
