package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_device_attr_ex}: what {@code ibv_query_device_ex} fills, including {@code device_cap_flags_ex} (the FLUSH and ATOMIC WRITE bits). */
public final class ibv_device_attr_ex {
    private ibv_device_attr_ex() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_device_attr_ex",
            ibv_device_attr.layout().withName("orig_attr"),
            C_U32.withName("comp_mask"),
            ibv_odp_caps.layout().withName("odp_caps"),
            C_U64.withName("completion_timestamp_mask"),
            C_U64.withName("hca_core_clock"),
            C_U64.withName("device_cap_flags_ex"),
            ibv_tso_caps.layout().withName("tso_caps"),
            ibv_rss_caps.layout().withName("rss_caps"),
            C_U32.withName("max_wq_type_rq"),
            ibv_packet_pacing_caps.layout().withName("packet_pacing_caps"),
            C_U32.withName("raw_packet_caps"),
            ibv_tm_caps.layout().withName("tm_caps"),
            ibv_cq_moderation_caps.layout().withName("cq_mod_caps"),
            C_U64.withName("max_dm_size"),
            ibv_pci_atomic_caps.layout().withName("pci_atomic_caps"),
            C_U32.withName("xrc_odp_caps"),
            C_U32.withName("phys_port_cnt_ex"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long orig_attr$OFFSET = CLayouts.offset(LAYOUT, "orig_attr");
    public static final long device_cap_flags_ex$OFFSET = CLayouts.offset(LAYOUT, "device_cap_flags_ex");
    public static final long odp_caps$general_caps$OFFSET = CLayouts.offset(LAYOUT, "odp_caps.general_caps");
    public static final long pci_atomic_caps$OFFSET = CLayouts.offset(LAYOUT, "pci_atomic_caps");
    public static final long phys_port_cnt_ex$OFFSET = CLayouts.offset(LAYOUT, "phys_port_cnt_ex");
    public static final long completion_timestamp_mask$OFFSET = CLayouts.offset(LAYOUT, "completion_timestamp_mask");
}
