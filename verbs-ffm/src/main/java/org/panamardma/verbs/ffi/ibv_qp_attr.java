package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_qp_attr}. */
public final class ibv_qp_attr {
    private ibv_qp_attr() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_qp_attr",
            C_INT.withName("qp_state"),
            C_INT.withName("cur_qp_state"),
            C_INT.withName("path_mtu"),
            C_INT.withName("path_mig_state"),
            C_U32.withName("qkey"),
            C_U32.withName("rq_psn"),
            C_U32.withName("sq_psn"),
            C_U32.withName("dest_qp_num"),
            C_U32.withName("qp_access_flags"),
            ibv_qp_cap.layout().withName("cap"),
            ibv_ah_attr.layout().withName("ah_attr"),
            ibv_ah_attr.layout().withName("alt_ah_attr"),
            C_U16.withName("pkey_index"),
            C_U16.withName("alt_pkey_index"),
            C_U8.withName("en_sqd_async_notify"),
            C_U8.withName("sq_draining"),
            C_U8.withName("max_rd_atomic"),
            C_U8.withName("max_dest_rd_atomic"),
            C_U8.withName("min_rnr_timer"),
            C_U8.withName("port_num"),
            C_U8.withName("timeout"),
            C_U8.withName("retry_cnt"),
            C_U8.withName("rnr_retry"),
            C_U8.withName("alt_port_num"),
            C_U8.withName("alt_timeout"),
            C_U32.withName("rate_limit"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long qp_state$OFFSET = CLayouts.offset(LAYOUT, "qp_state");
    public static final long cur_qp_state$OFFSET = CLayouts.offset(LAYOUT, "cur_qp_state");
    public static final long path_mtu$OFFSET = CLayouts.offset(LAYOUT, "path_mtu");
    public static final long rq_psn$OFFSET = CLayouts.offset(LAYOUT, "rq_psn");
    public static final long sq_psn$OFFSET = CLayouts.offset(LAYOUT, "sq_psn");
    public static final long dest_qp_num$OFFSET = CLayouts.offset(LAYOUT, "dest_qp_num");
    public static final long qp_access_flags$OFFSET = CLayouts.offset(LAYOUT, "qp_access_flags");
    public static final long cap$OFFSET = CLayouts.offset(LAYOUT, "cap");
    public static final long ah_attr$OFFSET = CLayouts.offset(LAYOUT, "ah_attr");
    public static final long ah_attr$grh$dgid$OFFSET = CLayouts.offset(LAYOUT, "ah_attr.grh.dgid");
    public static final long ah_attr$grh$sgid_index$OFFSET = CLayouts.offset(LAYOUT, "ah_attr.grh.sgid_index");
    public static final long ah_attr$grh$hop_limit$OFFSET = CLayouts.offset(LAYOUT, "ah_attr.grh.hop_limit");
    public static final long ah_attr$grh$flow_label$OFFSET = CLayouts.offset(LAYOUT, "ah_attr.grh.flow_label");
    public static final long ah_attr$grh$traffic_class$OFFSET = CLayouts.offset(LAYOUT, "ah_attr.grh.traffic_class");
    public static final long ah_attr$dlid$OFFSET = CLayouts.offset(LAYOUT, "ah_attr.dlid");
    public static final long ah_attr$sl$OFFSET = CLayouts.offset(LAYOUT, "ah_attr.sl");
    public static final long ah_attr$is_global$OFFSET = CLayouts.offset(LAYOUT, "ah_attr.is_global");
    public static final long ah_attr$port_num$OFFSET = CLayouts.offset(LAYOUT, "ah_attr.port_num");
    public static final long pkey_index$OFFSET = CLayouts.offset(LAYOUT, "pkey_index");
    public static final long max_rd_atomic$OFFSET = CLayouts.offset(LAYOUT, "max_rd_atomic");
    public static final long max_dest_rd_atomic$OFFSET = CLayouts.offset(LAYOUT, "max_dest_rd_atomic");
    public static final long min_rnr_timer$OFFSET = CLayouts.offset(LAYOUT, "min_rnr_timer");
    public static final long port_num$OFFSET = CLayouts.offset(LAYOUT, "port_num");
    public static final long timeout$OFFSET = CLayouts.offset(LAYOUT, "timeout");
    public static final long retry_cnt$OFFSET = CLayouts.offset(LAYOUT, "retry_cnt");
    public static final long rnr_retry$OFFSET = CLayouts.offset(LAYOUT, "rnr_retry");
}
