package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_rss_caps}. */
public final class ibv_rss_caps {
    private ibv_rss_caps() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_rss_caps",
            C_U32.withName("supported_qpts"),
            C_U32.withName("max_rwq_indirection_tables"),
            C_U32.withName("max_rwq_indirection_table_size"),
            C_U64.withName("rx_hash_fields_mask"),
            C_U8.withName("rx_hash_function"));

    public static StructLayout layout() {
        return LAYOUT;
    }
}
