package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_pd}. */
public final class ibv_pd {
    private ibv_pd() {}

    private static final StructLayout LAYOUT =
            CLayouts.struct("ibv_pd", C_POINTER.withName("context"), C_U32.withName("handle"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long context$OFFSET = CLayouts.offset(LAYOUT, "context");
    public static final long handle$OFFSET = CLayouts.offset(LAYOUT, "handle");
}
