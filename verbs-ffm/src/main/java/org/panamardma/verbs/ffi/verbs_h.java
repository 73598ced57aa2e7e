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
 * pointers read from the structs (see the ops classes). The constants are in {@link verbs_h$constants}, which this
 * class extends (jextract's chain for a large header): {@code verbs_h.IBV_QPT_RC} names them here.
 */
public final class verbs_h extends verbs_h$constants {
    private verbs_h() {}

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
