package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_qp_init_attr_ex}. */
public final class ibv_qp_init_attr_ex {
    private ibv_qp_init_attr_ex() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_qp_init_attr_ex",
            C_POINTER.withName("qp_context"),
            C_POINTER.withName("send_cq"),
            C_POINTER.withName("recv_cq"),
            C_POINTER.withName("srq"),
            ibv_qp_cap.layout().withName("cap"),
            C_INT.withName("qp_type"),
            C_INT.withName("sq_sig_all"),
            C_U32.withName("comp_mask"),
            C_POINTER.withName("pd"),
            C_POINTER.withName("xrcd"),
            C_U32.withName("create_flags"),
            C_U16.withName("max_tso_header"),
            C_POINTER.withName("rwq_ind_tbl"),
            ibv_rx_hash_conf.layout().withName("rx_hash_conf"),
            C_U32.withName("source_qpn"),
            C_U64.withName("send_ops_flags"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long qp_context$OFFSET = CLayouts.offset(LAYOUT, "qp_context");
    public static final long send_cq$OFFSET = CLayouts.offset(LAYOUT, "send_cq");
    public static final long recv_cq$OFFSET = CLayouts.offset(LAYOUT, "recv_cq");
    public static final long srq$OFFSET = CLayouts.offset(LAYOUT, "srq");
    public static final long cap$OFFSET = CLayouts.offset(LAYOUT, "cap");
    public static final long qp_type$OFFSET = CLayouts.offset(LAYOUT, "qp_type");
    public static final long sq_sig_all$OFFSET = CLayouts.offset(LAYOUT, "sq_sig_all");
    public static final long comp_mask$OFFSET = CLayouts.offset(LAYOUT, "comp_mask");
    public static final long pd$OFFSET = CLayouts.offset(LAYOUT, "pd");
    public static final long send_ops_flags$OFFSET = CLayouts.offset(LAYOUT, "send_ops_flags");
}
