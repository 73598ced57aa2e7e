package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_poll_cq_attr}. */
public final class ibv_poll_cq_attr {
    private ibv_poll_cq_attr() {}

    private static final StructLayout LAYOUT = CLayouts.struct("ibv_poll_cq_attr", C_U32.withName("comp_mask"));

    public static StructLayout layout() {
        return LAYOUT;
    }
}
