package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_device_attr}. */
public final class ibv_device_attr {
    private ibv_device_attr() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_device_attr",
            CLayouts.array(64, C_U8, "fw_ver"),
            C_U64.withName("node_guid"),
            C_U64.withName("sys_image_guid"),
            C_U64.withName("max_mr_size"),
            C_U64.withName("page_size_cap"),
            C_U32.withName("vendor_id"),
            C_U32.withName("vendor_part_id"),
            C_U32.withName("hw_ver"),
            C_INT.withName("max_qp"),
            C_INT.withName("max_qp_wr"),
            C_U32.withName("device_cap_flags"),
            C_INT.withName("max_sge"),
            C_INT.withName("max_sge_rd"),
            C_INT.withName("max_cq"),
            C_INT.withName("max_cqe"),
            C_INT.withName("max_mr"),
            C_INT.withName("max_pd"),
            C_INT.withName("max_qp_rd_atom"),
            C_INT.withName("max_ee_rd_atom"),
            C_INT.withName("max_res_rd_atom"),
            C_INT.withName("max_qp_init_rd_atom"),
            C_INT.withName("max_ee_init_rd_atom"),
            C_INT.withName("atomic_cap"),
            C_INT.withName("max_ee"),
            C_INT.withName("max_rdd"),
            C_INT.withName("max_mw"),
            C_INT.withName("max_raw_ipv6_qp"),
            C_INT.withName("max_raw_ethy_qp"),
            C_INT.withName("max_mcast_grp"),
            C_INT.withName("max_mcast_qp_attach"),
            C_INT.withName("max_total_mcast_qp_attach"),
            C_INT.withName("max_ah"),
            C_INT.withName("max_fmr"),
            C_INT.withName("max_map_per_fmr"),
            C_INT.withName("max_srq"),
            C_INT.withName("max_srq_wr"),
            C_INT.withName("max_srq_sge"),
            C_U16.withName("max_pkeys"),
            C_U8.withName("local_ca_ack_delay"),
            C_U8.withName("phys_port_cnt"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long fw_ver$OFFSET = CLayouts.offset(LAYOUT, "fw_ver");
    public static final long node_guid$OFFSET = CLayouts.offset(LAYOUT, "node_guid");
    public static final long sys_image_guid$OFFSET = CLayouts.offset(LAYOUT, "sys_image_guid");
    public static final long max_mr_size$OFFSET = CLayouts.offset(LAYOUT, "max_mr_size");
    public static final long page_size_cap$OFFSET = CLayouts.offset(LAYOUT, "page_size_cap");
    public static final long vendor_id$OFFSET = CLayouts.offset(LAYOUT, "vendor_id");
    public static final long vendor_part_id$OFFSET = CLayouts.offset(LAYOUT, "vendor_part_id");
    public static final long hw_ver$OFFSET = CLayouts.offset(LAYOUT, "hw_ver");
    public static final long max_qp$OFFSET = CLayouts.offset(LAYOUT, "max_qp");
    public static final long max_qp_wr$OFFSET = CLayouts.offset(LAYOUT, "max_qp_wr");
    public static final long device_cap_flags$OFFSET = CLayouts.offset(LAYOUT, "device_cap_flags");
    public static final long max_sge$OFFSET = CLayouts.offset(LAYOUT, "max_sge");
    public static final long max_sge_rd$OFFSET = CLayouts.offset(LAYOUT, "max_sge_rd");
    public static final long max_cq$OFFSET = CLayouts.offset(LAYOUT, "max_cq");
    public static final long max_cqe$OFFSET = CLayouts.offset(LAYOUT, "max_cqe");
    public static final long max_mr$OFFSET = CLayouts.offset(LAYOUT, "max_mr");
    public static final long max_pd$OFFSET = CLayouts.offset(LAYOUT, "max_pd");
    public static final long max_qp_rd_atom$OFFSET = CLayouts.offset(LAYOUT, "max_qp_rd_atom");
    public static final long max_res_rd_atom$OFFSET = CLayouts.offset(LAYOUT, "max_res_rd_atom");
    public static final long max_qp_init_rd_atom$OFFSET = CLayouts.offset(LAYOUT, "max_qp_init_rd_atom");
    public static final long atomic_cap$OFFSET = CLayouts.offset(LAYOUT, "atomic_cap");
    public static final long max_mw$OFFSET = CLayouts.offset(LAYOUT, "max_mw");
    public static final long max_ah$OFFSET = CLayouts.offset(LAYOUT, "max_ah");
    public static final long max_srq$OFFSET = CLayouts.offset(LAYOUT, "max_srq");
    public static final long max_srq_wr$OFFSET = CLayouts.offset(LAYOUT, "max_srq_wr");
    public static final long max_srq_sge$OFFSET = CLayouts.offset(LAYOUT, "max_srq_sge");
    public static final long max_pkeys$OFFSET = CLayouts.offset(LAYOUT, "max_pkeys");
    public static final long local_ca_ack_delay$OFFSET = CLayouts.offset(LAYOUT, "local_ca_ack_delay");
    public static final long phys_port_cnt$OFFSET = CLayouts.offset(LAYOUT, "phys_port_cnt");
}
