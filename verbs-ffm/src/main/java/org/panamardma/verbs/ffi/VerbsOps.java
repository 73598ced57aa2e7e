package org.panamardma.verbs.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;

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

    private static MethodHandle fast(FunctionDescriptor fd) {
        return L.downcallHandle(fd, CRITICAL);
    }

    private static MethodHandle slow(FunctionDescriptor fd, Linker.Option... options) {
        return L.downcallHandle(fd, options);
    }

    // ibv_context_ops
    /** {@code int poll_cq(struct ibv_cq *, int num_entries, struct ibv_wc *)} */
    public static final MethodHandle POLL_CQ = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    /** {@code int req_notify_cq(struct ibv_cq *, int solicited_only)} */
    public static final MethodHandle REQ_NOTIFY_CQ = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    /** {@code int post_send(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **bad)}; same shape for
     *  post_recv and post_srq_recv. Returns an errno value (not -1/errno). */
    public static final MethodHandle POST_WR = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    // verbs_context
    /** {@code struct ibv_qp *create_qp_ex(struct ibv_context *, struct ibv_qp_init_attr_ex *)} */
    public static final MethodHandle CREATE_QP_EX =
            slow(FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);
    /** {@code struct ibv_cq_ex *create_cq_ex(struct ibv_context *, struct ibv_cq_init_attr_ex *)} */
    public static final MethodHandle CREATE_CQ_EX =
            slow(FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);
    /** {@code int query_device_ex(ctx, const struct ibv_query_device_ex_input *, struct ibv_device_attr_ex *, size_t)} */
    public static final MethodHandle QUERY_DEVICE_EX =
            slow(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG));
    /** {@code int query_port(ctx, uint8_t port, struct ibv_port_attr *, size_t)} */
    public static final MethodHandle QUERY_PORT =
            slow(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG));

    // ibv_qp_ex: the ibv_wr_* verbs
    /** {@code void (*)(struct ibv_qp_ex *)}: wr_start, wr_abort, wr_send */
    public static final MethodHandle WR_VOID = fast(FunctionDescriptor.ofVoid(ADDRESS));
    /** {@code int wr_complete(struct ibv_qp_ex *)} */
    public static final MethodHandle WR_COMPLETE = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** {@code void wr_send_imm(struct ibv_qp_ex *, __be32 imm)} */
    public static final MethodHandle WR_SEND_IMM = fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
    /** {@code void (*)(struct ibv_qp_ex *, uint32_t rkey, uint64_t remote_addr)}: wr_rdma_write, wr_rdma_read */
    public static final MethodHandle WR_RDMA = fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG));
    /** {@code void wr_rdma_write_imm(struct ibv_qp_ex *, uint32_t rkey, uint64_t remote_addr, __be32 imm)} */
    public static final MethodHandle WR_RDMA_WRITE_IMM =
            fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    /** {@code void wr_atomic_cmp_swp(struct ibv_qp_ex *, uint32_t rkey, uint64_t addr, uint64_t compare, uint64_t swap)} */
    public static final MethodHandle WR_ATOMIC_CMP_SWP =
            fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    /** {@code void wr_atomic_fetch_add(struct ibv_qp_ex *, uint32_t rkey, uint64_t addr, uint64_t add)} */
    public static final MethodHandle WR_ATOMIC_FETCH_ADD =
            fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG));
    /** {@code void wr_atomic_write(struct ibv_qp_ex *, uint32_t rkey, uint64_t addr, const void *atomic_wr)} */
    public static final MethodHandle WR_ATOMIC_WRITE =
            fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS));
    /** {@code void wr_flush(struct ibv_qp_ex *, uint32_t rkey, uint64_t addr, size_t len, uint8_t type, uint8_t level)} */
    public static final MethodHandle WR_FLUSH =
            fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_BYTE, JAVA_BYTE));
    /** {@code void wr_set_sge(struct ibv_qp_ex *, uint32_t lkey, uint64_t addr, uint32_t length)} */
    public static final MethodHandle WR_SET_SGE =
            fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    /** {@code void wr_set_sge_list(struct ibv_qp_ex *, size_t num_sge, const struct ibv_sge *)} */
    public static final MethodHandle WR_SET_SGE_LIST = fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, ADDRESS));
    /** {@code void wr_set_inline_data(struct ibv_qp_ex *, void *addr, size_t length)} */
    public static final MethodHandle WR_SET_INLINE_DATA = fast(FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_LONG));

    // ibv_cq_ex: extended polling
    /** {@code int start_poll(struct ibv_cq_ex *, struct ibv_poll_cq_attr *)} */
    public static final MethodHandle START_POLL = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    /** {@code int next_poll(struct ibv_cq_ex *)}; also every {@code uint32_t read_*(struct ibv_cq_ex *)} */
    public static final MethodHandle CQ_INT = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** {@code void end_poll(struct ibv_cq_ex *)} */
    public static final MethodHandle CQ_VOID = fast(FunctionDescriptor.ofVoid(ADDRESS));
}
