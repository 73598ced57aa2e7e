package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_port_attr}. Grew: rdma-core 49 appended {@code active_speed_ex} (52 bytes in 44, 56 since). We
 * allocate it and pass its size (verbs_context.query_port); an older libibverbs zeroes the buffer and fills only
 * what it knows, so {@code active_speed_ex} reads 0 there ({@code active_speed} then holds the speed).
 */
@Grew(Grew.Owner.CALLER)
public final class ibv_port_attr {
    private ibv_port_attr() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_port_attr",
            C_INT.withName("state"),
            C_INT.withName("max_mtu"),
            C_INT.withName("active_mtu"),
            C_INT.withName("gid_tbl_len"),
            C_U32.withName("port_cap_flags"),
            C_U32.withName("max_msg_sz"),
            C_U32.withName("bad_pkey_cntr"),
            C_U32.withName("qkey_viol_cntr"),
            C_U16.withName("pkey_tbl_len"),
            C_U16.withName("lid"),
            C_U16.withName("sm_lid"),
            C_U8.withName("lmc"),
            C_U8.withName("max_vl_num"),
            C_U8.withName("sm_sl"),
            C_U8.withName("subnet_timeout"),
            C_U8.withName("init_type_reply"),
            C_U8.withName("active_width"),
            C_U8.withName("active_speed"),
            C_U8.withName("phys_state"),
            C_U8.withName("link_layer"),
            C_U8.withName("flags"),
            C_U16.withName("port_cap_flags2"),
            C_U32.withName("active_speed_ex"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long state$OFFSET = CLayouts.offset(LAYOUT, "state");
    public static final long max_mtu$OFFSET = CLayouts.offset(LAYOUT, "max_mtu");
    public static final long active_mtu$OFFSET = CLayouts.offset(LAYOUT, "active_mtu");
    public static final long gid_tbl_len$OFFSET = CLayouts.offset(LAYOUT, "gid_tbl_len");
    public static final long port_cap_flags$OFFSET = CLayouts.offset(LAYOUT, "port_cap_flags");
    public static final long max_msg_sz$OFFSET = CLayouts.offset(LAYOUT, "max_msg_sz");
    public static final long pkey_tbl_len$OFFSET = CLayouts.offset(LAYOUT, "pkey_tbl_len");
    public static final long lid$OFFSET = CLayouts.offset(LAYOUT, "lid");
    public static final long sm_lid$OFFSET = CLayouts.offset(LAYOUT, "sm_lid");
    public static final long active_width$OFFSET = CLayouts.offset(LAYOUT, "active_width");
    public static final long active_speed$OFFSET = CLayouts.offset(LAYOUT, "active_speed");
    public static final long phys_state$OFFSET = CLayouts.offset(LAYOUT, "phys_state");
    public static final long link_layer$OFFSET = CLayouts.offset(LAYOUT, "link_layer");

    @Since(49) // rdma-core 91b4ed8dd "verbs: Add support for XDR speed in ibv_query_port", first in v49.0
    public static final long active_speed_ex$OFFSET = CLayouts.offset(LAYOUT, "active_speed_ex");
}
