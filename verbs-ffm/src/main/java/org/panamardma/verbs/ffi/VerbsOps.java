package org.panamardma.verbs.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Calls through the function pointers behind the {@code static inline} verbs of verbs.h: {@code ibv_post_send},
 * {@code ibv_post_recv}, {@code ibv_poll_cq}, {@code ibv_req_notify_cq} (via {@code struct ibv_context_ops}), the
 * extended verbs (via {@code struct verbs_context}), the {@code ibv_wr_*} family (via {@code struct ibv_qp_ex}) and
 * extended polling (via {@code struct ibv_cq_ex}).
 *
 * <p>Each handle takes the function's address as its first argument; callers read the pointer from the struct
 * once (when the object is created) and keep it, so a data-path call is one {@code invokeExact}. The data-path
 * handles are {@linkplain Linker.Option#critical(boolean) critical}: these provider functions are short, never
 * block and never call back into Java, so the thread-state transition can be skipped.
 */
public final class VerbsOps {
    private VerbsOps() {}

    private static final Linker L = Native.LINKER;
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    /** The descriptor of each handle below, for the ABI check (native-headers, AbiTest; see {@link CallsThrough}). */
    static final Map<MethodHandle, FunctionDescriptor> DESCRIPTORS = new IdentityHashMap<>();

    private static MethodHandle fast(FunctionDescriptor fd) {
        MethodHandle h = L.downcallHandle(fd, CRITICAL);
        DESCRIPTORS.put(h, fd);
        return h;
    }

    private static MethodHandle slow(FunctionDescriptor fd, Linker.Option... options) {
        MethodHandle h = L.downcallHandle(fd, options);
        DESCRIPTORS.put(h, fd);
        return h;
    }

    // ibv_context_ops
    /** {@code int poll_cq(struct ibv_cq *, int num_entries, struct ibv_wc *)} */
    @CallsThrough("ibv_context_ops.poll_cq")
    public static final MethodHandle POLL_CQ = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    /** {@code int req_notify_cq(struct ibv_cq *, int solicited_only)} */
    @CallsThrough("ibv_context_ops.req_notify_cq")
    public static final MethodHandle REQ_NOTIFY_CQ = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    /** {@code int post_send(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **bad)}; same shape for
     *  post_recv and post_srq_recv. Returns an errno value (not -1/errno). */
    @CallsThrough({"ibv_context_ops.post_send", "ibv_context_ops.post_recv", "ibv_context_ops.post_srq_recv"})
    public static final MethodHandle POST_WR = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    /** {@code struct ibv_mw *alloc_mw(struct ibv_pd *, enum ibv_mw_type)}: what the inline {@code ibv_alloc_mw} calls */
    @CallsThrough("ibv_context_ops.alloc_mw")
    public static final MethodHandle ALLOC_MW =
            slow(FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT), Native.CAPTURE_ERRNO);
    /** {@code int dealloc_mw(struct ibv_mw *)}: what the inline {@code ibv_dealloc_mw} calls; returns an errno value */
    @CallsThrough("ibv_context_ops.dealloc_mw")
    public static final MethodHandle DEALLOC_MW = slow(FunctionDescriptor.of(JAVA_INT, ADDRESS));

    // verbs_context
    /** {@code struct ibv_qp *create_qp_ex(struct ibv_context *, struct ibv_qp_init_attr_ex *)} */
    @CallsThrough("verbs_context.create_qp_ex")
    public static final MethodHandle CREATE_QP_EX =
            slow(FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);
    /** {@code struct ibv_cq_ex *create_cq_ex(struct ibv_context *, struct ibv_cq_init_attr_ex *)} */
    @CallsThrough("verbs_context.create_cq_ex")
    public static final MethodHandle CREATE_CQ_EX =
            slow(FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);
    /** {@code int query_device_ex(ctx, const struct ibv_query_device_ex_input *, struct ibv_device_attr_ex *, size_t)} */
    @CallsThrough("verbs_context.query_device_ex")
    public static final MethodHandle QUERY_DEVICE_EX =
            slow(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
    /** {@code int query_port(ctx, uint8_t port, struct ibv_port_attr *, size_t)} */
    @CallsThrough("verbs_context.query_port")
    public static final MethodHandle QUERY_PORT =
            slow(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG));

    // ibv_qp_ex: the ibv_wr_* verbs
    /** {@code void (*)(struct ibv_qp_ex *)}: wr_start, wr_abort, wr_send */
    @CallsThrough({"ibv_qp_ex.wr_start", "ibv_qp_ex.wr_abort", "ibv_qp_ex.wr_send"})
    public static final MethodHandle WR_VOID = fast(FunctionDescriptor.ofVoid(ADDRESS));
    /** {@code int wr_complete(struct ibv_qp_ex *)} */
    @CallsThrough("ibv_qp_ex.wr_complete")
    public static final MethodHandle WR_COMPLETE = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** {@code void wr_send_imm(struct ibv_qp_ex *, __be32 imm)} */
    @CallsThrough("ibv_qp_ex.wr_send_imm")
    public static final MethodHandle WR_SEND_IMM = fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
    /** {@code void (*)(struct ibv_qp_ex *, uint32_t rkey, uint64_t remote_addr)}: wr_rdma_write, wr_rdma_read */
    @CallsThrough({"ibv_qp_ex.wr_rdma_write", "ibv_qp_ex.wr_rdma_read"})
    public static final MethodHandle WR_RDMA = fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG));
    /** {@code void wr_rdma_write_imm(struct ibv_qp_ex *, uint32_t rkey, uint64_t remote_addr, __be32 imm)} */
    @CallsThrough("ibv_qp_ex.wr_rdma_write_imm")
    public static final MethodHandle WR_RDMA_WRITE_IMM =
            fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    /** {@code void wr_atomic_cmp_swp(struct ibv_qp_ex *, uint32_t rkey, uint64_t addr, uint64_t compare, uint64_t swap)} */
    @CallsThrough("ibv_qp_ex.wr_atomic_cmp_swp")
    public static final MethodHandle WR_ATOMIC_CMP_SWP =
            fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    /** {@code void wr_atomic_fetch_add(struct ibv_qp_ex *, uint32_t rkey, uint64_t addr, uint64_t add)} */
    @CallsThrough("ibv_qp_ex.wr_atomic_fetch_add")
    public static final MethodHandle WR_ATOMIC_FETCH_ADD =
            fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG));
    /** {@code void wr_atomic_write(struct ibv_qp_ex *, uint32_t rkey, uint64_t addr, const void *atomic_wr)} */
    @CallsThrough("ibv_qp_ex.wr_atomic_write")
    public static final MethodHandle WR_ATOMIC_WRITE =
            fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS));
    /** {@code void wr_flush(struct ibv_qp_ex *, uint32_t rkey, uint64_t addr, size_t len, uint8_t type, uint8_t level)} */
    @CallsThrough("ibv_qp_ex.wr_flush")
    public static final MethodHandle WR_FLUSH =
            fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_BYTE, JAVA_BYTE));
    /** {@code void wr_set_sge(struct ibv_qp_ex *, uint32_t lkey, uint64_t addr, uint32_t length)} */
    @CallsThrough("ibv_qp_ex.wr_set_sge")
    public static final MethodHandle WR_SET_SGE =
            fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    /** {@code void wr_set_sge_list(struct ibv_qp_ex *, size_t num_sge, const struct ibv_sge *)} */
    @CallsThrough("ibv_qp_ex.wr_set_sge_list")
    public static final MethodHandle WR_SET_SGE_LIST = fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, ADDRESS));
    /** {@code void wr_set_inline_data(struct ibv_qp_ex *, void *addr, size_t length)} */
    @CallsThrough("ibv_qp_ex.wr_set_inline_data")
    public static final MethodHandle WR_SET_INLINE_DATA = fast(FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG));

    /**
     * {@code void wr_bind_mw(struct ibv_qp_ex *, struct ibv_mw *, uint32_t rkey, const struct ibv_mw_bind_info *)}:
     * binds a type 2 memory window under the new key {@code rkey}
     */
    @CallsThrough("ibv_qp_ex.wr_bind_mw")
    public static final MethodHandle WR_BIND_MW =
            fast(FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
    /** {@code void wr_local_inv(struct ibv_qp_ex *, uint32_t invalidate_rkey)} */
    @CallsThrough("ibv_qp_ex.wr_local_inv")
    public static final MethodHandle WR_LOCAL_INV = fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));

    // ibv_cq_ex: extended polling
    /** {@code int start_poll(struct ibv_cq_ex *, struct ibv_poll_cq_attr *)} */
    @CallsThrough("ibv_cq_ex.start_poll")
    public static final MethodHandle START_POLL = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    /** {@code int next_poll(struct ibv_cq_ex *)}; also every {@code uint32_t read_*(struct ibv_cq_ex *)} */
    @CallsThrough({"ibv_cq_ex.next_poll", "ibv_cq_ex.read_opcode", "ibv_cq_ex.read_vendor_err", "ibv_cq_ex.read_byte_len",
            "ibv_cq_ex.read_imm_data", "ibv_cq_ex.read_qp_num", "ibv_cq_ex.read_wc_flags"})
    public static final MethodHandle CQ_INT = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** {@code void end_poll(struct ibv_cq_ex *)} */
    @CallsThrough("ibv_cq_ex.end_poll")
    public static final MethodHandle CQ_VOID = fast(FunctionDescriptor.ofVoid(ADDRESS));
}
