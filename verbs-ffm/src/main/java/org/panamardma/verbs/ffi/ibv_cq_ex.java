package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_cq_ex}: the extended CQ, polled through its function pointers ({@code ibv_start_poll} ...). */
public final class ibv_cq_ex {
    private ibv_cq_ex() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_cq_ex",
            C_POINTER.withName("context"),
            C_POINTER.withName("channel"),
            C_POINTER.withName("cq_context"),
            C_U32.withName("handle"),
            C_INT.withName("cqe"),
            CLayouts.pthreadMutex("mutex"),
            CLayouts.pthreadCond("cond"),
            C_U32.withName("comp_events_completed"),
            C_U32.withName("async_events_completed"),
            C_U32.withName("comp_mask"),
            C_INT.withName("status"),
            C_U64.withName("wr_id"),
            C_POINTER.withName("start_poll"),
            C_POINTER.withName("next_poll"),
            C_POINTER.withName("end_poll"),
            C_POINTER.withName("read_opcode"),
            C_POINTER.withName("read_vendor_err"),
            C_POINTER.withName("read_byte_len"),
            C_POINTER.withName("read_imm_data"),
            C_POINTER.withName("read_qp_num"),
            C_POINTER.withName("read_src_qp"),
            C_POINTER.withName("read_wc_flags"),
            C_POINTER.withName("read_slid"),
            C_POINTER.withName("read_sl"),
            C_POINTER.withName("read_dlid_path_bits"),
            C_POINTER.withName("read_completion_ts"),
            C_POINTER.withName("read_cvlan"),
            C_POINTER.withName("read_flow_tag"),
            C_POINTER.withName("read_tm_info"),
            C_POINTER.withName("read_completion_wallclock_ns"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long status$OFFSET = CLayouts.offset(LAYOUT, "status");
    public static final long wr_id$OFFSET = CLayouts.offset(LAYOUT, "wr_id");
    public static final long start_poll$OFFSET = CLayouts.offset(LAYOUT, "start_poll");
    public static final long next_poll$OFFSET = CLayouts.offset(LAYOUT, "next_poll");
    public static final long end_poll$OFFSET = CLayouts.offset(LAYOUT, "end_poll");
    public static final long read_opcode$OFFSET = CLayouts.offset(LAYOUT, "read_opcode");
    public static final long read_vendor_err$OFFSET = CLayouts.offset(LAYOUT, "read_vendor_err");
    public static final long read_byte_len$OFFSET = CLayouts.offset(LAYOUT, "read_byte_len");
    public static final long read_imm_data$OFFSET = CLayouts.offset(LAYOUT, "read_imm_data");
    public static final long read_qp_num$OFFSET = CLayouts.offset(LAYOUT, "read_qp_num");
    public static final long read_wc_flags$OFFSET = CLayouts.offset(LAYOUT, "read_wc_flags");
}
