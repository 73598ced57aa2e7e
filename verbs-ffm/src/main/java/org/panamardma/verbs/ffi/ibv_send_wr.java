package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_send_wr}: the legacy send work request ({@code ibv_post_send}), used where the device has no extended QP (siw). */
public final class ibv_send_wr {
    private ibv_send_wr() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_send_wr",
            C_U64.withName("wr_id"),
            C_POINTER.withName("next"),
            C_POINTER.withName("sg_list"),
            C_INT.withName("num_sge"),
            C_INT.withName("opcode"),
            C_U32.withName("send_flags"),
            CLayouts.union(null, C_U32.withName("imm_data"), C_U32.withName("invalidate_rkey"))
                    .withName("$anon0"),
            CLayouts.union(
                            null,
                            CLayouts.struct(null, C_U64.withName("remote_addr"), C_U32.withName("rkey"))
                                    .withName("rdma"),
                            CLayouts.struct(
                                            null,
                                            C_U64.withName("remote_addr"),
                                            C_U64.withName("compare_add"),
                                            C_U64.withName("swap"),
                                            C_U32.withName("rkey"))
                                    .withName("atomic"),
                            CLayouts.struct(
                                            null,
                                            C_POINTER.withName("ah"),
                                            C_U32.withName("remote_qpn"),
                                            C_U32.withName("remote_qkey"))
                                    .withName("ud"))
                    .withName("wr"),
            CLayouts.union(
                            null,
                            CLayouts.struct(null, C_U32.withName("remote_srqn")).withName("xrc"))
                    .withName("qp_type"),
            CLayouts.union(
                            null,
                            CLayouts.struct(
                                            null,
                                            C_POINTER.withName("mw"),
                                            C_U32.withName("rkey"),
                                            ibv_mw_bind_info.layout().withName("bind_info"))
                                    .withName("bind_mw"),
                            CLayouts.struct(
                                            null,
                                            C_POINTER.withName("hdr"),
                                            C_U16.withName("hdr_sz"),
                                            C_U16.withName("mss"))
                                    .withName("tso"))
                    .withName("$anon1"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long wr_id$OFFSET = CLayouts.offset(LAYOUT, "wr_id");
    public static final long next$OFFSET = CLayouts.offset(LAYOUT, "next");
    public static final long sg_list$OFFSET = CLayouts.offset(LAYOUT, "sg_list");
    public static final long num_sge$OFFSET = CLayouts.offset(LAYOUT, "num_sge");
    public static final long opcode$OFFSET = CLayouts.offset(LAYOUT, "opcode");
    public static final long send_flags$OFFSET = CLayouts.offset(LAYOUT, "send_flags");
    public static final long $anon0$imm_data$OFFSET = CLayouts.offset(LAYOUT, "$anon0.imm_data");
    public static final long $anon0$invalidate_rkey$OFFSET = CLayouts.offset(LAYOUT, "$anon0.invalidate_rkey");
    public static final long wr$rdma$remote_addr$OFFSET = CLayouts.offset(LAYOUT, "wr.rdma.remote_addr");
    public static final long wr$rdma$rkey$OFFSET = CLayouts.offset(LAYOUT, "wr.rdma.rkey");
    public static final long wr$atomic$remote_addr$OFFSET = CLayouts.offset(LAYOUT, "wr.atomic.remote_addr");
    public static final long wr$atomic$compare_add$OFFSET = CLayouts.offset(LAYOUT, "wr.atomic.compare_add");
    public static final long wr$atomic$swap$OFFSET = CLayouts.offset(LAYOUT, "wr.atomic.swap");
    public static final long wr$atomic$rkey$OFFSET = CLayouts.offset(LAYOUT, "wr.atomic.rkey");
    public static final long $anon1$bind_mw$mw$OFFSET = CLayouts.offset(LAYOUT, "$anon1.bind_mw.mw");
    public static final long $anon1$bind_mw$rkey$OFFSET = CLayouts.offset(LAYOUT, "$anon1.bind_mw.rkey");
    public static final long $anon1$bind_mw$bind_info$OFFSET = CLayouts.offset(LAYOUT, "$anon1.bind_mw.bind_info");
}
