package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct rdma_event_channel} of {@code <rdma/rdma_cma.h>}: the fd of {@code /dev/infiniband/rdma_cm}. */
public final class rdma_event_channel {
    private rdma_event_channel() {}

    private static final StructLayout LAYOUT = CLayouts.struct("rdma_event_channel", C_INT.withName("fd"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long fd$OFFSET = CLayouts.offset(LAYOUT, "fd");
}
