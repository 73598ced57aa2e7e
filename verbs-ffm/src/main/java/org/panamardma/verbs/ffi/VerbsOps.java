package org.panamardma.verbs.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Calls through the function pointers behind the {@code static inline} verbs of verbs.h: {@code ibv_post_send},
 * {@code ibv_post_recv}, {@code ibv_poll_cq}, {@code ibv_req_notify_cq} (via {@code struct ibv_context_ops}), the
 * extended verbs (via {@code struct verbs_context}), the {@code ibv_wr_*} family (via {@code struct ibv_qp_ex}) and
 * extended polling (via {@code struct ibv_cq_ex}).
 *
 * <p>Each handle takes the function's address as its first argument; callers read the pointer from the struct
 * once (when the object is created) and keep it, so a data-path call is one {@code invokeExact}.
 *
 * <p><b>Critical or not.</b> A {@linkplain Linker.Option#critical(boolean) critical} downcall skips the thread's
 * transition out of Java, about 1 ns, but no safepoint (no garbage collection anywhere in the JVM) completes while it
 * runs: right for a call that stays in user space for a few hundred nanoseconds, wrong for one that makes a system
 * call. The calls some providers make into the kernel ({@code post_send}, {@code post_recv}, {@code poll_cq},
 * {@code wr_complete}: rxe's and siw's doorbells are {@code write()}s) have two handles, a plain one and a
 * {@code _CRITICAL} twin, and the caller picks per provider ({@code ProviderTraits} in the typed API);
 * {@code req_notify_cq} (rxe's is a system call) is never critical; the {@code ibv_wr_*} builders and setters and
 * the extended poll's calls, which only fill or read queue entries in user memory, always are.
 *
 * <p><b>Addresses as {@code long}s.</b> The data-path handles (every {@link CallsThrough} handle but the
 * {@code verbs_context} ones) take each pointer argument after the target as a {@code long}, the address, not as a
 * {@code MemorySegment}: the downcall checks and unboxes every segment argument, about 1.7 ns each, and a post passes
 * three (measured on the stub provider: 7 ns per post+poll). The ABI check still sees the pointer descriptor each
 * handle is recorded with: on the LP64 ABIs the library runs on (x86-64 System V, AArch64 AAPCS64) a pointer argument
 * is passed exactly as a 64-bit integer. What a segment argument gave, keeping its arena open during the call, the
 * callers give otherwise: the QP's and CQ's {@code CallGate} for their scratch and native objects, and a reachability
 * fence for {@code WorkCompletions}' automatic arena.
 */
public final class VerbsOps {
    private VerbsOps() {}

    private static final Linker L = Native.LINKER;
    private static final Linker.Option CRITICAL = Linker.Option.critical(false);

    /** The descriptor of each handle below, for the ABI check (native-headers, AbiTest; see {@link CallsThrough}). */
    static final Map<MethodHandle, FunctionDescriptor> DESCRIPTORS = new IdentityHashMap<>();

    static {
        if (ADDRESS.byteSize() != JAVA_LONG.byteSize()) {
            throw new ExceptionInInitializerError("the data-path handles pass pointers as 64-bit integers (LP64); this "
                    + "platform's pointers have " + ADDRESS.byteSize() + " bytes");
        }
    }

    /** A critical data-path handle: pointers after the target as {@code long}s, recorded with {@code fd}. */
    private static MethodHandle fast(FunctionDescriptor fd) {
        return addressesAsLongs(fd, CRITICAL);
    }

    /** A data-path handle that is not critical: pointers after the target as {@code long}s, recorded with {@code fd}. */
    private static MethodHandle plain(FunctionDescriptor fd) {
        return addressesAsLongs(fd);
    }

    /** The critical twin of {@code plain}: the same descriptor (so the same ABI check), no thread transition. */
    private static MethodHandle criticalTwin(MethodHandle plain) {
        return fast(DESCRIPTORS.get(plain));
    }

    private static MethodHandle addressesAsLongs(FunctionDescriptor fd, Linker.Option... options) {
        List<MemoryLayout> c = fd.argumentLayouts();
        MemoryLayout[] args = new MemoryLayout[c.size()];
        for (int i = 0; i < args.length; i++) {
            MemoryLayout l = c.get(i);
            args[i] = l instanceof AddressLayout || (i >= JAVA_REGISTER_ARGUMENTS_AFTER_TARGET && isNarrowInteger(l))
                    ? JAVA_LONG
                    : l;
        }
        FunctionDescriptor longs = fd.returnLayout()
                .map(r -> FunctionDescriptor.of(r, args))
                .orElseGet(() -> FunctionDescriptor.ofVoid(args));
        MethodHandle h = L.downcallHandle(longs, options);
        FunctionDescriptor other = DESCRIPTORS.get(h);
        if (other != null && !other.equals(fd)) {
            // The linker hands out one handle per (descriptor, options), and two C signatures that differ only in
            // which arguments are pointers (wr_atomic_fetch_add and wr_atomic_write, wr_set_sge_list and
            // wr_set_inline_data) have the same descriptor once their pointers are longs: the ABI check, which finds
            // a handle's C signature by identity, needs one instance each. An identity filter makes another instance;
            // the JIT folds it away (the handles are constants).
            h = MethodHandles.filterArguments(
                    h, 1, MethodHandles.identity(h.type().parameterType(1)));
        }
        DESCRIPTORS.put(h, fd);
        return h;
    }

    /**
     * Integer arguments after the target that HotSpot's Java calling convention passes in registers on x86-64
     * ({@code j_rarg0..5}; the target address is the first of six). A downcall's later arguments reach the downcall
     * stub on the stack, and one narrower than 64 bits there costs about 5 ns more per call than a {@code long}
     * (measured on the stub provider, AMD EPYC, JDK 25: a critical downcall of six C arguments took 8.4-8.7 ns with an
     * {@code int} or {@code byte} sixth argument, 3.8 ns with a {@code long} one, as with five; the stub's 64-bit load
     * of the compiled caller's 32-bit store fails store-to-load forwarding, as far as the figures tell). So such an
     * argument is linked as a {@code long}, which its callers pass zero-extended.
     */
    private static final int JAVA_REGISTER_ARGUMENTS_AFTER_TARGET = 5;

    /**
     * Whether {@code l} is an integer narrower than 64 bits. Passing one as a zero-extended {@code long} is the same
     * call where it matters here, a C argument in a register (a sixth integer argument is one on x86-64 System V, in
     * {@code r9}, and on AArch64, in {@code x5}): the callee reads only the low bits of its type, the upper ones being
     * unspecified on both ABIs (gcc's callees re-extend them, clang's take them extended to 32 bits, as they are).
     */
    private static boolean isNarrowInteger(MemoryLayout l) {
        return l instanceof ValueLayout v
                && (v.carrier() == byte.class || v.carrier() == short.class || v.carrier() == int.class);
    }

    private static MethodHandle slow(FunctionDescriptor fd, Linker.Option... options) {
        MethodHandle h = L.downcallHandle(fd, options);
        DESCRIPTORS.put(h, fd);
        return h;
    }

    // ibv_context_ops
    /** {@code int poll_cq(struct ibv_cq *, int num_entries, struct ibv_wc *)} */
    @CallsThrough("ibv_context_ops.poll_cq")
    public static final MethodHandle POLL_CQ = plain(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    /** {@link #POLL_CQ}, critical: for providers whose poll_cq stays in user space. */
    @CallsThrough("ibv_context_ops.poll_cq")
    public static final MethodHandle POLL_CQ_CRITICAL = criticalTwin(POLL_CQ);
    /** {@code int req_notify_cq(struct ibv_cq *, int solicited_only)}: rxe's is a system call. */
    @CallsThrough("ibv_context_ops.req_notify_cq")
    public static final MethodHandle REQ_NOTIFY_CQ = plain(FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    /** {@code int post_send(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **bad)}; same shape for
     *  post_recv and post_srq_recv. Returns an errno value (not -1/errno). */
    @CallsThrough({"ibv_context_ops.post_send", "ibv_context_ops.post_recv", "ibv_context_ops.post_srq_recv"})
    public static final MethodHandle POST_WR = plain(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    /** {@link #POST_WR}, critical: for providers that ring no doorbell through the kernel. */
    @CallsThrough({"ibv_context_ops.post_send", "ibv_context_ops.post_recv", "ibv_context_ops.post_srq_recv"})
    public static final MethodHandle POST_WR_CRITICAL = criticalTwin(POST_WR);

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
    public static final MethodHandle WR_COMPLETE = plain(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** {@link #WR_COMPLETE}, critical: for providers whose doorbell is not a system call. */
    @CallsThrough("ibv_qp_ex.wr_complete")
    public static final MethodHandle WR_COMPLETE_CRITICAL = criticalTwin(WR_COMPLETE);
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
    /**
     * {@code void wr_flush(struct ibv_qp_ex *, uint32_t rkey, uint64_t addr, size_t len, uint8_t type, uint8_t level)};
     * {@code level}, its sixth argument, is a {@code long} (zero-extended: see {@link #JAVA_REGISTER_ARGUMENTS_AFTER_TARGET})
     */
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
    public static final MethodHandle WR_BIND_MW = fast(FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
    /** {@code void wr_local_inv(struct ibv_qp_ex *, uint32_t invalidate_rkey)} */
    @CallsThrough("ibv_qp_ex.wr_local_inv")
    public static final MethodHandle WR_LOCAL_INV = fast(FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));

    // ibv_cq_ex: extended polling
    /** {@code int start_poll(struct ibv_cq_ex *, struct ibv_poll_cq_attr *)} */
    @CallsThrough("ibv_cq_ex.start_poll")
    public static final MethodHandle START_POLL = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    /** {@code int next_poll(struct ibv_cq_ex *)}; also every {@code uint32_t read_*(struct ibv_cq_ex *)} */
    @CallsThrough({
        "ibv_cq_ex.next_poll",
        "ibv_cq_ex.read_opcode",
        "ibv_cq_ex.read_vendor_err",
        "ibv_cq_ex.read_byte_len",
        "ibv_cq_ex.read_imm_data",
        "ibv_cq_ex.read_qp_num",
        "ibv_cq_ex.read_wc_flags"
    })
    public static final MethodHandle CQ_INT = fast(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    /** {@code void end_poll(struct ibv_cq_ex *)} */
    @CallsThrough("ibv_cq_ex.end_poll")
    public static final MethodHandle CQ_VOID = fast(FunctionDescriptor.ofVoid(ADDRESS));
}
