package org.panamardma.verbs.ffi;

/**
 * The constants of {@code <infiniband/verbs.h>} (its enums, and the kernel uapi bits it includes): the first class of
 * {@link verbs_h}'s chain, split off the way jextract splits a large header ({@code foo_h extends foo_h$shared}...)
 * so that each file holds one kind of thing while callers keep writing {@code verbs_h.IBV_QPT_RC}. Not for use by
 * name: the ABI check ({@code JavaBindings}) and the {@code @Since} gates ({@code SinceGatesTest}) read it as part of
 * {@code verbs_h}.
 */
class verbs_h$constants {
    verbs_h$constants() {}

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
}
