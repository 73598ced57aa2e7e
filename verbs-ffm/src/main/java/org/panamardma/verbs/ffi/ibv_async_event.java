package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_async_event}. */
public final class ibv_async_event {
    private ibv_async_event() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_async_event",
            CLayouts.union(
                            null,
                            C_POINTER.withName("cq"),
                            C_POINTER.withName("qp"),
                            C_POINTER.withName("srq"),
                            C_POINTER.withName("wq"),
                            C_INT.withName("port_num"))
                    .withName("element"),
            C_INT.withName("event_type"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long element$OFFSET = CLayouts.offset(LAYOUT, "element");
    public static final long element$port_num$OFFSET = CLayouts.offset(LAYOUT, "element.port_num");
    public static final long event_type$OFFSET = CLayouts.offset(LAYOUT, "event_type");
}
