package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_sge}. */
public final class ibv_sge {
    private ibv_sge() {}

    private static final StructLayout LAYOUT =
            CLayouts.struct("ibv_sge", C_U64.withName("addr"), C_U32.withName("length"), C_U32.withName("lkey"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long addr$OFFSET = CLayouts.offset(LAYOUT, "addr");
    public static final long length$OFFSET = CLayouts.offset(LAYOUT, "length");
    public static final long lkey$OFFSET = CLayouts.offset(LAYOUT, "lkey");
}
