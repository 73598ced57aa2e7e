package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_rx_hash_conf}. */
public final class ibv_rx_hash_conf {
    private ibv_rx_hash_conf() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_rx_hash_conf",
            C_U8.withName("rx_hash_function"),
            C_U8.withName("rx_hash_key_len"),
            C_POINTER.withName("rx_hash_key"),
            C_U64.withName("rx_hash_fields_mask"));

    public static StructLayout layout() {
        return LAYOUT;
    }
}
