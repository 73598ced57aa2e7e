package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_qp_ex}: the extended QP whose function pointers are the {@code ibv_wr_*} verbs. Grew: rdma-core 45
 * appended {@code wr_flush} (352 bytes in 44, 360 since); the provider allocates it, so {@code wr_flush} must not be
 * read on an older rdma-core.
 */
@Grew(Grew.Owner.LIBRARY)
public final class ibv_qp_ex {
    private ibv_qp_ex() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_qp_ex",
            ibv_qp.layout().withName("qp_base"),
            C_U64.withName("comp_mask"),
            C_U64.withName("wr_id"),
            C_U32.withName("wr_flags"),
            C_POINTER.withName("wr_atomic_cmp_swp"),
            C_POINTER.withName("wr_atomic_fetch_add"),
            C_POINTER.withName("wr_bind_mw"),
            C_POINTER.withName("wr_local_inv"),
            C_POINTER.withName("wr_rdma_read"),
            C_POINTER.withName("wr_rdma_write"),
            C_POINTER.withName("wr_rdma_write_imm"),
            C_POINTER.withName("wr_send"),
            C_POINTER.withName("wr_send_imm"),
            C_POINTER.withName("wr_send_inv"),
            C_POINTER.withName("wr_send_tso"),
            C_POINTER.withName("wr_set_ud_addr"),
            C_POINTER.withName("wr_set_xrc_srqn"),
            C_POINTER.withName("wr_set_inline_data"),
            C_POINTER.withName("wr_set_inline_data_list"),
            C_POINTER.withName("wr_set_sge"),
            C_POINTER.withName("wr_set_sge_list"),
            C_POINTER.withName("wr_start"),
            C_POINTER.withName("wr_complete"),
            C_POINTER.withName("wr_abort"),
            C_POINTER.withName("wr_atomic_write"),
            C_POINTER.withName("wr_flush"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long wr_id$OFFSET = CLayouts.offset(LAYOUT, "wr_id");
    public static final long wr_flags$OFFSET = CLayouts.offset(LAYOUT, "wr_flags");
    public static final long wr_atomic_cmp_swp$OFFSET = CLayouts.offset(LAYOUT, "wr_atomic_cmp_swp");
    public static final long wr_atomic_fetch_add$OFFSET = CLayouts.offset(LAYOUT, "wr_atomic_fetch_add");
    public static final long wr_bind_mw$OFFSET = CLayouts.offset(LAYOUT, "wr_bind_mw");
    public static final long wr_local_inv$OFFSET = CLayouts.offset(LAYOUT, "wr_local_inv");
    public static final long wr_rdma_read$OFFSET = CLayouts.offset(LAYOUT, "wr_rdma_read");
    public static final long wr_rdma_write$OFFSET = CLayouts.offset(LAYOUT, "wr_rdma_write");
    public static final long wr_rdma_write_imm$OFFSET = CLayouts.offset(LAYOUT, "wr_rdma_write_imm");
    public static final long wr_send$OFFSET = CLayouts.offset(LAYOUT, "wr_send");
    public static final long wr_send_imm$OFFSET = CLayouts.offset(LAYOUT, "wr_send_imm");
    public static final long wr_set_inline_data$OFFSET = CLayouts.offset(LAYOUT, "wr_set_inline_data");
    public static final long wr_set_sge$OFFSET = CLayouts.offset(LAYOUT, "wr_set_sge");
    public static final long wr_set_sge_list$OFFSET = CLayouts.offset(LAYOUT, "wr_set_sge_list");
    public static final long wr_start$OFFSET = CLayouts.offset(LAYOUT, "wr_start");
    public static final long wr_complete$OFFSET = CLayouts.offset(LAYOUT, "wr_complete");
    public static final long wr_abort$OFFSET = CLayouts.offset(LAYOUT, "wr_abort");
    public static final long wr_atomic_write$OFFSET = CLayouts.offset(LAYOUT, "wr_atomic_write");

    @Since(45) // rdma-core 20a37f32c "providers/rxe: Add new API ibv_wr_flush()", first in v45.0
    public static final long wr_flush$OFFSET = CLayouts.offset(LAYOUT, "wr_flush");
}
