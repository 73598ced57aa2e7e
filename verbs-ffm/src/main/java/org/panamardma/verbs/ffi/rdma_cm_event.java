package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/**
 * {@code struct rdma_cm_event} of {@code <rdma/rdma_cma.h>}: allocated by librdmacm in {@code rdma_get_cm_event},
 * valid (with the private data it points to) until {@code rdma_ack_cm_event}.
 */
public final class rdma_cm_event {
    private rdma_cm_event() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "rdma_cm_event",
            C_POINTER.withName("id"),
            C_POINTER.withName("listen_id"),
            C_INT.withName("event"),
            C_INT.withName("status"),
            CLayouts.union(
                            null,
                            rdma_conn_param.layout().withName("conn"),
                            rdma_ud_param.layout().withName("ud"))
                    .withName("param"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long id$OFFSET = CLayouts.offset(LAYOUT, "id");
    public static final long listen_id$OFFSET = CLayouts.offset(LAYOUT, "listen_id");
    public static final long event$OFFSET = CLayouts.offset(LAYOUT, "event");
    public static final long status$OFFSET = CLayouts.offset(LAYOUT, "status");
    public static final long param$conn$OFFSET = CLayouts.offset(LAYOUT, "param.conn");
    public static final long param$ud$OFFSET = CLayouts.offset(LAYOUT, "param.ud");
}
