package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_cq_moderation_caps}. */
public final class ibv_cq_moderation_caps {
    private ibv_cq_moderation_caps() {}

    private static final StructLayout LAYOUT =
            CLayouts.struct("ibv_cq_moderation_caps", C_U16.withName("max_cq_count"), C_U16.withName("max_cq_period"));

    public static StructLayout layout() {
        return LAYOUT;
    }
}
