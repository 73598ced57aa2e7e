package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_wc}: one work completion. */
public final class ibv_wc {
    private ibv_wc() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_wc",
            C_U64.withName("wr_id"),
            C_INT.withName("status"),
            C_INT.withName("opcode"),
            C_U32.withName("vendor_err"),
            C_U32.withName("byte_len"),
            CLayouts.union(null, C_U32.withName("imm_data"), C_U32.withName("invalidated_rkey"))
                    .withName("$anon0"),
            C_U32.withName("qp_num"),
            C_U32.withName("src_qp"),
            C_U32.withName("wc_flags"),
            C_U16.withName("pkey_index"),
            C_U16.withName("slid"),
            C_U8.withName("sl"),
            C_U8.withName("dlid_path_bits"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long wr_id$OFFSET = CLayouts.offset(LAYOUT, "wr_id");
    public static final long status$OFFSET = CLayouts.offset(LAYOUT, "status");
    public static final long opcode$OFFSET = CLayouts.offset(LAYOUT, "opcode");
    public static final long vendor_err$OFFSET = CLayouts.offset(LAYOUT, "vendor_err");
    public static final long byte_len$OFFSET = CLayouts.offset(LAYOUT, "byte_len");
    public static final long $anon0$imm_data$OFFSET = CLayouts.offset(LAYOUT, "$anon0.imm_data");
    public static final long $anon0$invalidated_rkey$OFFSET = CLayouts.offset(LAYOUT, "$anon0.invalidated_rkey");
    public static final long qp_num$OFFSET = CLayouts.offset(LAYOUT, "qp_num");
    public static final long src_qp$OFFSET = CLayouts.offset(LAYOUT, "src_qp");
    public static final long wc_flags$OFFSET = CLayouts.offset(LAYOUT, "wc_flags");
}
