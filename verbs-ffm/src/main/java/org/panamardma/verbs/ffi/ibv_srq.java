package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_srq}. */
public final class ibv_srq {
    private ibv_srq() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_srq",
            C_POINTER.withName("context"),
            C_POINTER.withName("srq_context"),
            C_POINTER.withName("pd"),
            C_U32.withName("handle"),
            CLayouts.pthreadMutex("mutex"),
            CLayouts.pthreadCond("cond"),
            C_U32.withName("events_completed"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long context$OFFSET = CLayouts.offset(LAYOUT, "context");
    public static final long pd$OFFSET = CLayouts.offset(LAYOUT, "pd");
}
