package org.panamardma.verbs.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Functions of {@code <infiniband/verbs.h>} exported by libibverbs, in jextract's shape: one static method per
 * function, the handle built once. The {@code static inline} verbs are not here: they are calls through function
 * pointers read from the structs (see the ops classes).
 */
public final class verbs_h {
    private verbs_h() {}

    // enum ibv_node_type
    public static final int IBV_NODE_UNKNOWN = -1;
    public static final int IBV_NODE_CA = 1;
    public static final int IBV_NODE_SWITCH = 2;
    public static final int IBV_NODE_ROUTER = 3;
    public static final int IBV_NODE_RNIC = 4;
    public static final int IBV_NODE_USNIC = 5;
    public static final int IBV_NODE_USNIC_UDP = 6;
    public static final int IBV_NODE_UNSPECIFIED = 7;

    // enum ibv_transport_type
    public static final int IBV_TRANSPORT_UNKNOWN = -1;
    public static final int IBV_TRANSPORT_IB = 0;
    public static final int IBV_TRANSPORT_IWARP = 1;
    public static final int IBV_TRANSPORT_USNIC = 2;
    public static final int IBV_TRANSPORT_USNIC_UDP = 3;
    public static final int IBV_TRANSPORT_UNSPECIFIED = 4;

    // enum ibv_atomic_cap
    public static final int IBV_ATOMIC_NONE = 0;
    public static final int IBV_ATOMIC_HCA = 1;
    public static final int IBV_ATOMIC_GLOB = 2;

    // enum ibv_device_cap_flags (selection)
    public static final int IBV_DEVICE_RC_RNR_NAK_GEN = 1 << 12;
    public static final int IBV_DEVICE_SRQ_RESIZE = 1 << 13;
    public static final int IBV_DEVICE_N_NOTIFY_CQ = 1 << 14;
    public static final int IBV_DEVICE_MEM_WINDOW = 1 << 17;
    public static final int IBV_DEVICE_MEM_MGT_EXTENSIONS = 1 << 21;
    public static final int IBV_DEVICE_MEM_WINDOW_TYPE_2A = 1 << 23;
    public static final int IBV_DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24;

    // enum ibv_mw_type
    public static final int IBV_MW_TYPE_1 = 1;
    public static final int IBV_MW_TYPE_2 = 2;

    // enum ibv_mtu
    public static final int IBV_MTU_256 = 1;
    public static final int IBV_MTU_512 = 2;
    public static final int IBV_MTU_1024 = 3;
    public static final int IBV_MTU_2048 = 4;
    public static final int IBV_MTU_4096 = 5;

    // enum ibv_port_state
    public static final int IBV_PORT_NOP = 0;
    public static final int IBV_PORT_DOWN = 1;
    public static final int IBV_PORT_INIT = 2;
    public static final int IBV_PORT_ARMED = 3;
    public static final int IBV_PORT_ACTIVE = 4;
    public static final int IBV_PORT_ACTIVE_DEFER = 5;

    // link layer
    public static final int IBV_LINK_LAYER_UNSPECIFIED = 0;
    public static final int IBV_LINK_LAYER_INFINIBAND = 1;
    public static final int IBV_LINK_LAYER_ETHERNET = 2;

    // enum ibv_gid_type
    public static final int IBV_GID_TYPE_IB = 0;
    public static final int IBV_GID_TYPE_ROCE_V1 = 1;
    public static final int IBV_GID_TYPE_ROCE_V2 = 2;

    // enum ibv_access_flags
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;
    public static final int IBV_ACCESS_REMOTE_WRITE = 1 << 1;
    public static final int IBV_ACCESS_REMOTE_READ = 1 << 2;
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 1 << 3;
    public static final int IBV_ACCESS_MW_BIND = 1 << 4;
    public static final int IBV_ACCESS_ZERO_BASED = 1 << 5;
    public static final int IBV_ACCESS_ON_DEMAND = 1 << 6;
    public static final int IBV_ACCESS_HUGETLB = 1 << 7;

    @Since(45) // rdma-core c86028c67 "libibverbs: Add flush access flags", v45.0
    public static final int IBV_ACCESS_FLUSH_GLOBAL = 1 << 8;

    @Since(45) // rdma-core c86028c67, v45.0
    public static final int IBV_ACCESS_FLUSH_PERSISTENT = 1 << 9;

    public static final int IBV_ACCESS_RELAXED_ORDERING = 1 << 20;

    // enum ibv_wc_status
    public static final int IBV_WC_SUCCESS = 0;
    public static final int IBV_WC_LOC_LEN_ERR = 1;
    public static final int IBV_WC_LOC_QP_OP_ERR = 2;
    public static final int IBV_WC_LOC_EEC_OP_ERR = 3;
    public static final int IBV_WC_LOC_PROT_ERR = 4;
    public static final int IBV_WC_WR_FLUSH_ERR = 5;
    public static final int IBV_WC_MW_BIND_ERR = 6;
    public static final int IBV_WC_BAD_RESP_ERR = 7;
    public static final int IBV_WC_LOC_ACCESS_ERR = 8;
    public static final int IBV_WC_REM_INV_REQ_ERR = 9;
    public static final int IBV_WC_REM_ACCESS_ERR = 10;
    public static final int IBV_WC_REM_OP_ERR = 11;
    public static final int IBV_WC_RETRY_EXC_ERR = 12;
    public static final int IBV_WC_RNR_RETRY_EXC_ERR = 13;
    public static final int IBV_WC_LOC_RDD_VIOL_ERR = 14;
    public static final int IBV_WC_REM_INV_RD_REQ_ERR = 15;
    public static final int IBV_WC_REM_ABORT_ERR = 16;
    public static final int IBV_WC_INV_EECN_ERR = 17;
    public static final int IBV_WC_INV_EEC_STATE_ERR = 18;
    public static final int IBV_WC_FATAL_ERR = 19;
    public static final int IBV_WC_RESP_TIMEOUT_ERR = 20;
    public static final int IBV_WC_GENERAL_ERR = 21;
    public static final int IBV_WC_TM_ERR = 22;
    public static final int IBV_WC_TM_RNDV_INCOMPLETE = 23;

    // enum ibv_wc_opcode
    public static final int IBV_WC_SEND = 0;
    public static final int IBV_WC_RDMA_WRITE = 1;
    public static final int IBV_WC_RDMA_READ = 2;
    public static final int IBV_WC_COMP_SWAP = 3;
    public static final int IBV_WC_FETCH_ADD = 4;
    public static final int IBV_WC_BIND_MW = 5;
    public static final int IBV_WC_LOCAL_INV = 6;
    public static final int IBV_WC_TSO = 7;

    @Since(45) // rdma-core 20a37f32c "providers/rxe: Add new API ibv_wr_flush()", v45.0
    public static final int IBV_WC_FLUSH = 8;

    public static final int IBV_WC_ATOMIC_WRITE = 9;
    public static final int IBV_WC_RECV = 1 << 7;
    public static final int IBV_WC_RECV_RDMA_WITH_IMM = (1 << 7) + 1;

    // enum ibv_wc_flags
    public static final int IBV_WC_GRH = 1;
    public static final int IBV_WC_WITH_IMM = 1 << 1;
    public static final int IBV_WC_IP_CSUM_OK = 1 << 2;
    public static final int IBV_WC_WITH_INV = 1 << 3;

    // enum ibv_create_cq_wc_flags
    public static final int IBV_WC_EX_WITH_BYTE_LEN = 1;
    public static final int IBV_WC_EX_WITH_IMM = 1 << 1;
    public static final int IBV_WC_EX_WITH_QP_NUM = 1 << 2;
    public static final int IBV_WC_EX_WITH_SRC_QP = 1 << 3;
    public static final int IBV_WC_EX_WITH_SLID = 1 << 4;
    public static final int IBV_WC_EX_WITH_SL = 1 << 5;
    public static final int IBV_WC_EX_WITH_DLID_PATH_BITS = 1 << 6;
    public static final int IBV_WC_EX_WITH_COMPLETION_TIMESTAMP = 1 << 7;

    // enum ibv_cq_init_attr_mask
    public static final int IBV_CQ_INIT_ATTR_MASK_FLAGS = 1;
    public static final int IBV_CQ_INIT_ATTR_MASK_PD = 1 << 1;

    // enum ibv_wr_opcode
    public static final int IBV_WR_RDMA_WRITE = 0;
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    public static final int IBV_WR_SEND = 2;
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    public static final int IBV_WR_RDMA_READ = 4;
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    public static final int IBV_WR_LOCAL_INV = 7;
    public static final int IBV_WR_BIND_MW = 8;
    public static final int IBV_WR_SEND_WITH_INV = 9;
    public static final int IBV_WR_TSO = 10;
    public static final int IBV_WR_DRIVER1 = 11;

    @Since(45) // rdma-core 20a37f32c, v45.0
    public static final int IBV_WR_FLUSH = 14;

    public static final int IBV_WR_ATOMIC_WRITE = 15;

    // enum ibv_send_flags
    public static final int IBV_SEND_FENCE = 1;
    public static final int IBV_SEND_SIGNALED = 1 << 1;
    public static final int IBV_SEND_SOLICITED = 1 << 2;
    public static final int IBV_SEND_INLINE = 1 << 3;
    public static final int IBV_SEND_IP_CSUM = 1 << 4;

    // enum ibv_placement_type, enum ibv_selectivity_level
    @Since(45) // rdma-core 20a37f32c, v45.0
    public static final int IBV_FLUSH_GLOBAL = 1;

    @Since(45) // rdma-core 20a37f32c, v45.0
    public static final int IBV_FLUSH_PERSISTENT = 1 << 1;

    @Since(45) // rdma-core 20a37f32c, v45.0
    public static final int IBV_FLUSH_RANGE = 0;

    @Since(45) // rdma-core 20a37f32c, v45.0
    public static final int IBV_FLUSH_MR = 1;

    // enum ibv_qp_type
    public static final int IBV_QPT_RC = 2;
    public static final int IBV_QPT_UC = 3;
    public static final int IBV_QPT_UD = 4;

    // enum ibv_qp_init_attr_mask
    public static final int IBV_QP_INIT_ATTR_PD = 1;
    public static final int IBV_QP_INIT_ATTR_XRCD = 1 << 1;
    public static final int IBV_QP_INIT_ATTR_CREATE_FLAGS = 1 << 2;
    public static final int IBV_QP_INIT_ATTR_SEND_OPS_FLAGS = 1 << 6;

    // enum ibv_qp_create_send_ops_flags
    public static final int IBV_QP_EX_WITH_RDMA_WRITE = 1;
    public static final int IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM = 1 << 1;
    public static final int IBV_QP_EX_WITH_SEND = 1 << 2;
    public static final int IBV_QP_EX_WITH_SEND_WITH_IMM = 1 << 3;
    public static final int IBV_QP_EX_WITH_RDMA_READ = 1 << 4;
    public static final int IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP = 1 << 5;
    public static final int IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD = 1 << 6;
    public static final int IBV_QP_EX_WITH_LOCAL_INV = 1 << 7;
    public static final int IBV_QP_EX_WITH_BIND_MW = 1 << 8;
    public static final int IBV_QP_EX_WITH_SEND_WITH_INV = 1 << 9;
    public static final int IBV_QP_EX_WITH_TSO = 1 << 10;

    @Since(45) // rdma-core 20a37f32c, v45.0
    public static final int IBV_QP_EX_WITH_FLUSH = 1 << 11;

    public static final int IBV_QP_EX_WITH_ATOMIC_WRITE = 1 << 12;

    // enum ibv_qp_attr_mask
    public static final int IBV_QP_STATE = 1;
    public static final int IBV_QP_CUR_STATE = 1 << 1;
    public static final int IBV_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2;
    public static final int IBV_QP_ACCESS_FLAGS = 1 << 3;
    public static final int IBV_QP_PKEY_INDEX = 1 << 4;
    public static final int IBV_QP_PORT = 1 << 5;
    public static final int IBV_QP_QKEY = 1 << 6;
    public static final int IBV_QP_AV = 1 << 7;
    public static final int IBV_QP_PATH_MTU = 1 << 8;
    public static final int IBV_QP_TIMEOUT = 1 << 9;
    public static final int IBV_QP_RETRY_CNT = 1 << 10;
    public static final int IBV_QP_RNR_RETRY = 1 << 11;
    public static final int IBV_QP_RQ_PSN = 1 << 12;
    public static final int IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13;
    public static final int IBV_QP_ALT_PATH = 1 << 14;
    public static final int IBV_QP_MIN_RNR_TIMER = 1 << 15;
    public static final int IBV_QP_SQ_PSN = 1 << 16;
    public static final int IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17;
    public static final int IBV_QP_PATH_MIG_STATE = 1 << 18;
    public static final int IBV_QP_CAP = 1 << 19;
    public static final int IBV_QP_DEST_QPN = 1 << 20;

    // enum ibv_qp_state
    public static final int IBV_QPS_RESET = 0;
    public static final int IBV_QPS_INIT = 1;
    public static final int IBV_QPS_RTR = 2;
    public static final int IBV_QPS_RTS = 3;
    public static final int IBV_QPS_SQD = 4;
    public static final int IBV_QPS_SQE = 5;
    public static final int IBV_QPS_ERR = 6;
    public static final int IBV_QPS_UNKNOWN = 7;

    // enum ibv_srq_attr_mask
    public static final int IBV_SRQ_MAX_WR = 1;
    public static final int IBV_SRQ_LIMIT = 1 << 1;

    // enum ibv_event_type
    public static final int IBV_EVENT_CQ_ERR = 0;
    public static final int IBV_EVENT_QP_FATAL = 1;
    public static final int IBV_EVENT_QP_REQ_ERR = 2;
    public static final int IBV_EVENT_QP_ACCESS_ERR = 3;
    public static final int IBV_EVENT_COMM_EST = 4;
    public static final int IBV_EVENT_SQ_DRAINED = 5;
    public static final int IBV_EVENT_PATH_MIG = 6;
    public static final int IBV_EVENT_PATH_MIG_ERR = 7;
    public static final int IBV_EVENT_DEVICE_FATAL = 8;
    public static final int IBV_EVENT_PORT_ACTIVE = 9;
    public static final int IBV_EVENT_PORT_ERR = 10;
    public static final int IBV_EVENT_LID_CHANGE = 11;
    public static final int IBV_EVENT_PKEY_CHANGE = 12;
    public static final int IBV_EVENT_SM_CHANGE = 13;
    public static final int IBV_EVENT_SRQ_ERR = 14;
    public static final int IBV_EVENT_SRQ_LIMIT_REACHED = 15;
    public static final int IBV_EVENT_QP_LAST_WQE_REACHED = 16;
    public static final int IBV_EVENT_CLIENT_REREGISTER = 17;
    public static final int IBV_EVENT_GID_CHANGE = 18;
    public static final int IBV_EVENT_WQ_FATAL = 19;

    /**
     * {@code device_cap_flags_ex} bits of the kernel's {@code enum ib_uverbs_device_cap_flags}
     * ({@code <rdma/ib_user_verbs.h>}) that libibverbs 56 has no {@code IBV_DEVICE_*} name for.
     */
    // Linux 6.2 (kernel 124011e6e933 "RDMA/rxe: Enable RDMA FLUSH capability for rxe device"), in rdma-core's copy
    // of the uapi headers since v45.0 (16ac905b1 "Update kernel headers"); Debian 12's linux-libc-dev (6.1) lacks it
    @Since(value = 45, linux = "6.2")
    public static final long IB_UVERBS_DEVICE_FLUSH_GLOBAL = 1L << 38;

    @Since(value = 45, linux = "6.2")
    public static final long IB_UVERBS_DEVICE_FLUSH_PERSISTENT = 1L << 39;
    // Linux 6.2 (kernel c2d939002934 "RDMA/rxe: Extend rxe user ABI to support atomic write"), in rdma-core's copy
    // since v44.0 (d77c0504c "Update kernel headers"); Debian 12's linux-libc-dev (6.1) lacks it
    @Since(value = 44, linux = "6.2")
    public static final long IB_UVERBS_DEVICE_ATOMIC_WRITE = 1L << 40;

    /** {@code __VERBS_ABI_IS_EXTENDED} ((void *)UINTPTR_MAX): the {@code abi_compat} value of a context that has a verbs_context. */
    public static final long __VERBS_ABI_IS_EXTENDED = -1L;

    private static final Native.Library LIB = Native.IBVERBS;

    // struct ibv_device **ibv_get_device_list(int *num_devices);
    private static final MethodHandle ibv_get_device_list$MH =
            LIB.downcall("ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);
    // void ibv_free_device_list(struct ibv_device **list);
    private static final MethodHandle ibv_free_device_list$MH =
            LIB.downcall("ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS));
    // __be64 ibv_get_device_guid(struct ibv_device *device);
    private static final MethodHandle ibv_get_device_guid$MH =
            LIB.downcall("ibv_get_device_guid", FunctionDescriptor.of(JAVA_LONG, ADDRESS));

    /** {@code ibv_get_device_list}; errno lands in {@code callState}. */
    public static MemorySegment ibv_get_device_list(MemorySegment callState, MemorySegment numDevices) {
        try {
            return (MemorySegment) Native.require(ibv_get_device_list$MH, LIB, "ibv_get_device_list")
                    .invokeExact(callState, numDevices);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public static void ibv_free_device_list(MemorySegment list) {
        try {
            Native.require(ibv_free_device_list$MH, LIB, "ibv_free_device_list").invokeExact(list);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The node GUID in network byte order, as the C function returns it. */
    public static long ibv_get_device_guid(MemorySegment device) {
        try {
            return (long) Native.require(ibv_get_device_guid$MH, LIB, "ibv_get_device_guid")
                    .invokeExact(device);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_open_device$MH =
            LIB.downcall("ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code struct ibv_context *ibv_open_device(struct ibv_device *device);} errno lands in {@code callState}. */
    public static MemorySegment ibv_open_device(MemorySegment callState, MemorySegment device) {
        try {
            return (MemorySegment)
                    Native.require(ibv_open_device$MH, LIB, "ibv_open_device").invokeExact(callState, device);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_close_device$MH =
            LIB.downcall("ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /** {@code int ibv_close_device(struct ibv_context *context);} */
    public static int ibv_close_device(MemorySegment context) {
        try {
            return (int)
                    Native.require(ibv_close_device$MH, LIB, "ibv_close_device").invokeExact(context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_query_device$MH =
            LIB.downcall("ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));

    /** {@code int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr);} */
    public static int ibv_query_device(MemorySegment context, MemorySegment device_attr) {
        try {
            return (int)
                    Native.require(ibv_query_device$MH, LIB, "ibv_query_device").invokeExact(context, device_attr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_query_port$MH =
            LIB.downcall("ibv_query_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));

    /** {@code int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *port_attr); the legacy entry, used only when the verbs_context has no query_port.} */
    public static int ibv_query_port(MemorySegment context, byte port_num, MemorySegment port_attr) {
        try {
            return (int)
                    Native.require(ibv_query_port$MH, LIB, "ibv_query_port").invokeExact(context, port_num, port_attr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_query_gid$MH =
            LIB.downcall("ibv_query_gid", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS));

    /** {@code int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid);} */
    public static int ibv_query_gid(MemorySegment context, byte port_num, int index, MemorySegment gid) {
        try {
            return (int)
                    Native.require(ibv_query_gid$MH, LIB, "ibv_query_gid").invokeExact(context, port_num, index, gid);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle _ibv_query_gid_ex$MH = LIB.downcall(
            "_ibv_query_gid_ex",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));

    /** {@code int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num, uint32_t gid_index, struct ibv_gid_entry *entry, uint32_t flags, size_t entry_size); behind the inline ibv_query_gid_ex.} */
    public static int _ibv_query_gid_ex(
            MemorySegment context, int port_num, int gid_index, MemorySegment entry, int flags, long entry_size) {
        try {
            return (int) Native.require(_ibv_query_gid_ex$MH, LIB, "_ibv_query_gid_ex")
                    .invokeExact(context, port_num, gid_index, entry, flags, entry_size);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle _ibv_query_gid_table$MH = LIB.downcall(
            "_ibv_query_gid_table", FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_LONG));

    /** {@code ssize_t _ibv_query_gid_table(struct ibv_context *context, struct ibv_gid_entry *entries, size_t max_entries, uint32_t flags, size_t entry_size);} */
    public static long _ibv_query_gid_table(
            MemorySegment context, MemorySegment entries, long max_entries, int flags, long entry_size) {
        try {
            return (long) Native.require(_ibv_query_gid_table$MH, LIB, "_ibv_query_gid_table")
                    .invokeExact(context, entries, max_entries, flags, entry_size);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_alloc_pd$MH =
            LIB.downcall("ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code struct ibv_pd *ibv_alloc_pd(struct ibv_context *context);} errno lands in {@code callState}. */
    public static MemorySegment ibv_alloc_pd(MemorySegment callState, MemorySegment context) {
        try {
            return (MemorySegment)
                    Native.require(ibv_alloc_pd$MH, LIB, "ibv_alloc_pd").invokeExact(callState, context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_dealloc_pd$MH =
            LIB.downcall("ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /** {@code int ibv_dealloc_pd(struct ibv_pd *pd);} */
    public static int ibv_dealloc_pd(MemorySegment pd) {
        try {
            return (int)
                    Native.require(ibv_dealloc_pd$MH, LIB, "ibv_dealloc_pd").invokeExact(pd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_reg_mr_iova2$MH = LIB.downcall(
            "ibv_reg_mr_iova2",
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_INT),
            Native.CAPTURE_ERRNO);

    /** {@code struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access); what the ibv_reg_mr macro calls for non-constant access flags.} errno lands in {@code callState}. */
    public static MemorySegment ibv_reg_mr_iova2(
            MemorySegment callState, MemorySegment pd, MemorySegment addr, long length, long iova, int access) {
        try {
            return (MemorySegment) Native.require(ibv_reg_mr_iova2$MH, LIB, "ibv_reg_mr_iova2")
                    .invokeExact(callState, pd, addr, length, iova, access);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_dereg_mr$MH =
            LIB.downcall("ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /** {@code int ibv_dereg_mr(struct ibv_mr *mr);} */
    public static int ibv_dereg_mr(MemorySegment mr) {
        try {
            return (int) Native.require(ibv_dereg_mr$MH, LIB, "ibv_dereg_mr").invokeExact(mr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_create_comp_channel$MH =
            LIB.downcall("ibv_create_comp_channel", FunctionDescriptor.of(ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context);} errno lands in {@code callState}. */
    public static MemorySegment ibv_create_comp_channel(MemorySegment callState, MemorySegment context) {
        try {
            return (MemorySegment) Native.require(ibv_create_comp_channel$MH, LIB, "ibv_create_comp_channel")
                    .invokeExact(callState, context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_destroy_comp_channel$MH =
            LIB.downcall("ibv_destroy_comp_channel", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /** {@code int ibv_destroy_comp_channel(struct ibv_comp_channel *channel);} */
    public static int ibv_destroy_comp_channel(MemorySegment channel) {
        try {
            return (int) Native.require(ibv_destroy_comp_channel$MH, LIB, "ibv_destroy_comp_channel")
                    .invokeExact(channel);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_create_cq$MH = LIB.downcall(
            "ibv_create_cq",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
            Native.CAPTURE_ERRNO);

    /** {@code struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context, struct ibv_comp_channel *channel, int comp_vector);} errno lands in {@code callState}. */
    public static MemorySegment ibv_create_cq(
            MemorySegment callState,
            MemorySegment context,
            int cqe,
            MemorySegment cq_context,
            MemorySegment channel,
            int comp_vector) {
        try {
            return (MemorySegment) Native.require(ibv_create_cq$MH, LIB, "ibv_create_cq")
                    .invokeExact(callState, context, cqe, cq_context, channel, comp_vector);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_destroy_cq$MH =
            LIB.downcall("ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /** {@code int ibv_destroy_cq(struct ibv_cq *cq);} */
    public static int ibv_destroy_cq(MemorySegment cq) {
        try {
            return (int)
                    Native.require(ibv_destroy_cq$MH, LIB, "ibv_destroy_cq").invokeExact(cq);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_get_cq_event$MH = LIB.downcall(
            "ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context);} errno lands in {@code callState}. */
    public static int ibv_get_cq_event(
            MemorySegment callState, MemorySegment channel, MemorySegment cq, MemorySegment cq_context) {
        try {
            return (int) Native.require(ibv_get_cq_event$MH, LIB, "ibv_get_cq_event")
                    .invokeExact(callState, channel, cq, cq_context);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_ack_cq_events$MH =
            LIB.downcall("ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));

    /** {@code void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents);} */
    public static void ibv_ack_cq_events(MemorySegment cq, int nevents) {
        try {
            Native.require(ibv_ack_cq_events$MH, LIB, "ibv_ack_cq_events").invokeExact(cq, nevents);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_create_qp$MH =
            LIB.downcall("ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr);} errno lands in {@code callState}. */
    public static MemorySegment ibv_create_qp(MemorySegment callState, MemorySegment pd, MemorySegment qp_init_attr) {
        try {
            return (MemorySegment)
                    Native.require(ibv_create_qp$MH, LIB, "ibv_create_qp").invokeExact(callState, pd, qp_init_attr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_qp_to_qp_ex$MH =
            LIB.downcall("ibv_qp_to_qp_ex", FunctionDescriptor.of(ADDRESS, ADDRESS));

    /** {@code struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp);} */
    public static MemorySegment ibv_qp_to_qp_ex(MemorySegment qp) {
        try {
            return (MemorySegment)
                    Native.require(ibv_qp_to_qp_ex$MH, LIB, "ibv_qp_to_qp_ex").invokeExact(qp);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_modify_qp$MH =
            LIB.downcall("ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));

    /** {@code int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);} */
    public static int ibv_modify_qp(MemorySegment qp, MemorySegment attr, int attr_mask) {
        try {
            return (int) Native.require(ibv_modify_qp$MH, LIB, "ibv_modify_qp").invokeExact(qp, attr, attr_mask);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_query_qp$MH =
            LIB.downcall("ibv_query_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));

    /** {@code int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask, struct ibv_qp_init_attr *init_attr);} */
    public static int ibv_query_qp(MemorySegment qp, MemorySegment attr, int attr_mask, MemorySegment init_attr) {
        try {
            return (int)
                    Native.require(ibv_query_qp$MH, LIB, "ibv_query_qp").invokeExact(qp, attr, attr_mask, init_attr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_destroy_qp$MH =
            LIB.downcall("ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /** {@code int ibv_destroy_qp(struct ibv_qp *qp);} */
    public static int ibv_destroy_qp(MemorySegment qp) {
        try {
            return (int)
                    Native.require(ibv_destroy_qp$MH, LIB, "ibv_destroy_qp").invokeExact(qp);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_create_srq$MH =
            LIB.downcall("ibv_create_srq", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr);} errno lands in {@code callState}. */
    public static MemorySegment ibv_create_srq(MemorySegment callState, MemorySegment pd, MemorySegment srq_init_attr) {
        try {
            return (MemorySegment)
                    Native.require(ibv_create_srq$MH, LIB, "ibv_create_srq").invokeExact(callState, pd, srq_init_attr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_modify_srq$MH =
            LIB.downcall("ibv_modify_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));

    /** {@code int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask);} */
    public static int ibv_modify_srq(MemorySegment srq, MemorySegment srq_attr, int srq_attr_mask) {
        try {
            return (int)
                    Native.require(ibv_modify_srq$MH, LIB, "ibv_modify_srq").invokeExact(srq, srq_attr, srq_attr_mask);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_destroy_srq$MH =
            LIB.downcall("ibv_destroy_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS));

    /** {@code int ibv_destroy_srq(struct ibv_srq *srq);} */
    public static int ibv_destroy_srq(MemorySegment srq) {
        try {
            return (int)
                    Native.require(ibv_destroy_srq$MH, LIB, "ibv_destroy_srq").invokeExact(srq);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_get_async_event$MH = LIB.downcall(
            "ibv_get_async_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event);} errno lands in {@code callState}. */
    public static int ibv_get_async_event(MemorySegment callState, MemorySegment context, MemorySegment event) {
        try {
            return (int) Native.require(ibv_get_async_event$MH, LIB, "ibv_get_async_event")
                    .invokeExact(callState, context, event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_ack_async_event$MH =
            LIB.downcall("ibv_ack_async_event", FunctionDescriptor.ofVoid(ADDRESS));

    /** {@code void ibv_ack_async_event(struct ibv_async_event *event);} */
    public static void ibv_ack_async_event(MemorySegment event) {
        try {
            Native.require(ibv_ack_async_event$MH, LIB, "ibv_ack_async_event").invokeExact(event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_wc_status_str$MH =
            LIB.downcall("ibv_wc_status_str", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    /** {@code const char *ibv_wc_status_str(enum ibv_wc_status status);} */
    public static MemorySegment ibv_wc_status_str(int status) {
        try {
            return (MemorySegment) Native.require(ibv_wc_status_str$MH, LIB, "ibv_wc_status_str")
                    .invokeExact(status);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static final MethodHandle ibv_event_type_str$MH =
            LIB.downcall("ibv_event_type_str", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    /** {@code const char *ibv_event_type_str(enum ibv_event_type event);} */
    public static MemorySegment ibv_event_type_str(int event) {
        try {
            return (MemorySegment) Native.require(ibv_event_type_str$MH, LIB, "ibv_event_type_str")
                    .invokeExact(event);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new AssertionError("native call threw a checked exception", t);
    }
}
