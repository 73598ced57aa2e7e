package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_gid_entry}. */
public final class ibv_gid_entry {
    private ibv_gid_entry() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_gid_entry",
            ibv_gid.layout().withName("gid"),
            C_U32.withName("gid_index"),
            C_U32.withName("port_num"),
            C_U32.withName("gid_type"),
            C_U32.withName("ndev_ifindex"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long gid$OFFSET = CLayouts.offset(LAYOUT, "gid");
    public static final long gid_index$OFFSET = CLayouts.offset(LAYOUT, "gid_index");
    public static final long port_num$OFFSET = CLayouts.offset(LAYOUT, "port_num");
    public static final long gid_type$OFFSET = CLayouts.offset(LAYOUT, "gid_type");
    public static final long ndev_ifindex$OFFSET = CLayouts.offset(LAYOUT, "ndev_ifindex");
}
