package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_qp_cap}. */
public final class ibv_qp_cap {
    private ibv_qp_cap() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_qp_cap",
            C_U32.withName("max_send_wr"),
            C_U32.withName("max_recv_wr"),
            C_U32.withName("max_send_sge"),
            C_U32.withName("max_recv_sge"),
            C_U32.withName("max_inline_data"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long max_send_wr$OFFSET = CLayouts.offset(LAYOUT, "max_send_wr");
    public static final long max_recv_wr$OFFSET = CLayouts.offset(LAYOUT, "max_recv_wr");
    public static final long max_send_sge$OFFSET = CLayouts.offset(LAYOUT, "max_send_sge");
    public static final long max_recv_sge$OFFSET = CLayouts.offset(LAYOUT, "max_recv_sge");
    public static final long max_inline_data$OFFSET = CLayouts.offset(LAYOUT, "max_inline_data");
}
