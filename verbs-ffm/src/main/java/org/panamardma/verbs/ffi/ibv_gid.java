package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.UnionLayout;

/** {@code union ibv_gid}: 16 bytes, network byte order. */
public final class ibv_gid {
    private ibv_gid() {}

    private static final UnionLayout LAYOUT = CLayouts.union(
            "ibv_gid",
            CLayouts.array(16, C_U8, "raw"),
            CLayouts.struct(null, C_U64.withName("subnet_prefix"), C_U64.withName("interface_id"))
                    .withName("global"));

    public static UnionLayout layout() {
        return LAYOUT;
    }

    public static final long raw$OFFSET = CLayouts.offset(LAYOUT, "raw");
}
