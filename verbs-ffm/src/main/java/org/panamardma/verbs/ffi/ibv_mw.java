package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_mw}: a memory window. The provider allocates it; its {@code rkey} is the window's current key,
 * which the application keeps up to date after each bind of a type 2 window (the extended {@code ibv_wr_bind_mw}
 * does not, and providers build the next bind request from it: rxe's {@code wr_bind_mw} and {@code convert_send_wr}).
 */
public final class ibv_mw {
    private ibv_mw() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_mw",
            C_POINTER.withName("context"),
            C_POINTER.withName("pd"),
            C_U32.withName("rkey"),
            C_U32.withName("handle"),
            C_INT.withName("type"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long rkey$OFFSET = CLayouts.offset(LAYOUT, "rkey");
    public static final long type$OFFSET = CLayouts.offset(LAYOUT, "type");
}
