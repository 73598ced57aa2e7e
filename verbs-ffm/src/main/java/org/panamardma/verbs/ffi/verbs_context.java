package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct verbs_context}: the extended verbs table that sits just before {@code struct ibv_context} in memory ({@code verbs_get_ctx_op} in verbs.h). The {@code static inline} extended verbs ({@code ibv_create_qp_ex}, {@code ibv_create_cq_ex}, {@code ibv_query_device_ex}, {@code ibv_query_port}) call through it. */
public final class verbs_context {
    private verbs_context() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "verbs_context",
            C_POINTER.withName("query_port"),
            C_POINTER.withName("advise_mr"),
            C_POINTER.withName("alloc_null_mr"),
            C_POINTER.withName("read_counters"),
            C_POINTER.withName("attach_counters_point_flow"),
            C_POINTER.withName("create_counters"),
            C_POINTER.withName("destroy_counters"),
            C_POINTER.withName("reg_dm_mr"),
            C_POINTER.withName("alloc_dm"),
            C_POINTER.withName("free_dm"),
            C_POINTER.withName("modify_flow_action_esp"),
            C_POINTER.withName("destroy_flow_action"),
            C_POINTER.withName("create_flow_action_esp"),
            C_POINTER.withName("modify_qp_rate_limit"),
            C_POINTER.withName("alloc_parent_domain"),
            C_POINTER.withName("dealloc_td"),
            C_POINTER.withName("alloc_td"),
            C_POINTER.withName("modify_cq"),
            C_POINTER.withName("post_srq_ops"),
            C_POINTER.withName("destroy_rwq_ind_table"),
            C_POINTER.withName("create_rwq_ind_table"),
            C_POINTER.withName("destroy_wq"),
            C_POINTER.withName("modify_wq"),
            C_POINTER.withName("create_wq"),
            C_POINTER.withName("query_rt_values"),
            C_POINTER.withName("create_cq_ex"),
            C_POINTER.withName("priv"),
            C_POINTER.withName("query_device_ex"),
            C_POINTER.withName("ibv_destroy_flow"),
            C_POINTER.withName("ABI_placeholder2"),
            C_POINTER.withName("ibv_create_flow"),
            C_POINTER.withName("ABI_placeholder1"),
            C_POINTER.withName("open_qp"),
            C_POINTER.withName("create_qp_ex"),
            C_POINTER.withName("get_srq_num"),
            C_POINTER.withName("create_srq_ex"),
            C_POINTER.withName("open_xrcd"),
            C_POINTER.withName("close_xrcd"),
            C_U64.withName("_ABI_placeholder3"),
            C_SIZE_T.withName("sz"),
            ibv_context.layout().withName("context"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long query_port$OFFSET = CLayouts.offset(LAYOUT, "query_port");
    public static final long create_cq_ex$OFFSET = CLayouts.offset(LAYOUT, "create_cq_ex");
    public static final long query_device_ex$OFFSET = CLayouts.offset(LAYOUT, "query_device_ex");
    public static final long create_qp_ex$OFFSET = CLayouts.offset(LAYOUT, "create_qp_ex");
    public static final long create_srq_ex$OFFSET = CLayouts.offset(LAYOUT, "create_srq_ex");
    public static final long sz$OFFSET = CLayouts.offset(LAYOUT, "sz");
    public static final long context$OFFSET = CLayouts.offset(LAYOUT, "context");
}
