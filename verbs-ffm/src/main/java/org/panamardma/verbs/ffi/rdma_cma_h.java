package org.panamardma.verbs.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Functions and constants of {@code <rdma/rdma_cma.h>} exported by librdmacm, in jextract's shape: one static method
 * per function, the handle built once. librdmacm reports failures as -1 with errno set, so every function that can
 * fail captures errno into the caller's {@code callState} ({@link Native#CALL_STATE}).
 */
public final class rdma_cma_h {
    private rdma_cma_h() {}

    // enum rdma_cm_event_type
    public static final int RDMA_CM_EVENT_ADDR_RESOLVED = 0;
    public static final int RDMA_CM_EVENT_ADDR_ERROR = 1;
    public static final int RDMA_CM_EVENT_ROUTE_RESOLVED = 2;
    public static final int RDMA_CM_EVENT_ROUTE_ERROR = 3;
    public static final int RDMA_CM_EVENT_CONNECT_REQUEST = 4;
    public static final int RDMA_CM_EVENT_CONNECT_RESPONSE = 5;
    public static final int RDMA_CM_EVENT_CONNECT_ERROR = 6;
    public static final int RDMA_CM_EVENT_UNREACHABLE = 7;
    public static final int RDMA_CM_EVENT_REJECTED = 8;
    public static final int RDMA_CM_EVENT_ESTABLISHED = 9;
    public static final int RDMA_CM_EVENT_DISCONNECTED = 10;
    public static final int RDMA_CM_EVENT_DEVICE_REMOVAL = 11;
    public static final int RDMA_CM_EVENT_MULTICAST_JOIN = 12;
    public static final int RDMA_CM_EVENT_MULTICAST_ERROR = 13;
    public static final int RDMA_CM_EVENT_ADDR_CHANGE = 14;
    public static final int RDMA_CM_EVENT_TIMEWAIT_EXIT = 15;

    // enum rdma_port_space
    public static final int RDMA_PS_IPOIB = 0x0002;
    public static final int RDMA_PS_TCP = 0x0106;
    public static final int RDMA_PS_UDP = 0x0111;
    public static final int RDMA_PS_IB = 0x013F;

    // anonymous enum: "as many as the device can" for responder_resources / initiator_depth
    public static final int RDMA_MAX_RESP_RES = 0xFF;
    public static final int RDMA_MAX_INIT_DEPTH = 0xFF;

    private static final Native.Library LIB = Native.RDMACM;

    private static final MethodHandle rdma_create_event_channel$MH =
            LIB.downcall("rdma_create_event_channel", FunctionDescriptor.of(ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code struct rdma_event_channel *rdma_create_event_channel(void);} errno lands in {@code callState}. */
    public static MemorySegment rdma_create_event_channel(MemorySegment callState) {
        try {
            return (MemorySegment) Native.require(rdma_create_event_channel$MH, LIB, "rdma_create_event_channel")
                    .invokeExact(callState);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_destroy_event_channel$MH =
            LIB.downcall("rdma_destroy_event_channel", FunctionDescriptor.ofVoid(ADDRESS));

    /** {@code void rdma_destroy_event_channel(struct rdma_event_channel *channel);} */
    public static void rdma_destroy_event_channel(MemorySegment channel) {
        try {
            Native.require(rdma_destroy_event_channel$MH, LIB, "rdma_destroy_event_channel")
                    .invokeExact(channel);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_create_id$MH = LIB.downcall(
            "rdma_create_id",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT),
            Native.CAPTURE_ERRNO);

    /** {@code int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context, enum rdma_port_space ps);} errno lands in {@code callState}. */
    public static int rdma_create_id(
            MemorySegment callState, MemorySegment channel, MemorySegment id, MemorySegment context, int ps) {
        try {
            return (int) Native.require(rdma_create_id$MH, LIB, "rdma_create_id")
                    .invokeExact(callState, channel, id, context, ps);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_destroy_id$MH =
            LIB.downcall("rdma_destroy_id", FunctionDescriptor.of(JAVA_INT, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code int rdma_destroy_id(struct rdma_cm_id *id);} blocks until every event of the id reported so far is acked. errno lands in {@code callState}. */
    public static int rdma_destroy_id(MemorySegment callState, MemorySegment id) {
        try {
            return (int)
                    Native.require(rdma_destroy_id$MH, LIB, "rdma_destroy_id").invokeExact(callState, id);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_bind_addr$MH =
            LIB.downcall("rdma_bind_addr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr);} errno lands in {@code callState}. */
    public static int rdma_bind_addr(MemorySegment callState, MemorySegment id, MemorySegment addr) {
        try {
            return (int)
                    Native.require(rdma_bind_addr$MH, LIB, "rdma_bind_addr").invokeExact(callState, id, addr);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_resolve_addr$MH = LIB.downcall(
            "rdma_resolve_addr",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT),
            Native.CAPTURE_ERRNO);

    /** {@code int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr, int timeout_ms);} errno lands in {@code callState}. */
    public static int rdma_resolve_addr(
            MemorySegment callState, MemorySegment id, MemorySegment src_addr, MemorySegment dst_addr, int timeout_ms) {
        try {
            return (int) Native.require(rdma_resolve_addr$MH, LIB, "rdma_resolve_addr")
                    .invokeExact(callState, id, src_addr, dst_addr, timeout_ms);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_resolve_route$MH = LIB.downcall(
            "rdma_resolve_route", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Native.CAPTURE_ERRNO);

    /** {@code int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms);} errno lands in {@code callState}. */
    public static int rdma_resolve_route(MemorySegment callState, MemorySegment id, int timeout_ms) {
        try {
            return (int) Native.require(rdma_resolve_route$MH, LIB, "rdma_resolve_route")
                    .invokeExact(callState, id, timeout_ms);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_listen$MH =
            LIB.downcall("rdma_listen", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Native.CAPTURE_ERRNO);

    /** {@code int rdma_listen(struct rdma_cm_id *id, int backlog);} errno lands in {@code callState}. */
    public static int rdma_listen(MemorySegment callState, MemorySegment id, int backlog) {
        try {
            return (int) Native.require(rdma_listen$MH, LIB, "rdma_listen").invokeExact(callState, id, backlog);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_connect$MH =
            LIB.downcall("rdma_connect", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param);} errno lands in {@code callState}. */
    public static int rdma_connect(MemorySegment callState, MemorySegment id, MemorySegment conn_param) {
        try {
            return (int) Native.require(rdma_connect$MH, LIB, "rdma_connect").invokeExact(callState, id, conn_param);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_accept$MH =
            LIB.downcall("rdma_accept", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param);} errno lands in {@code callState}. */
    public static int rdma_accept(MemorySegment callState, MemorySegment id, MemorySegment conn_param) {
        try {
            return (int) Native.require(rdma_accept$MH, LIB, "rdma_accept").invokeExact(callState, id, conn_param);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_reject$MH = LIB.downcall(
            "rdma_reject", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_BYTE), Native.CAPTURE_ERRNO);

    /** {@code int rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len);} errno lands in {@code callState}. */
    public static int rdma_reject(
            MemorySegment callState, MemorySegment id, MemorySegment private_data, byte private_data_len) {
        try {
            return (int) Native.require(rdma_reject$MH, LIB, "rdma_reject")
                    .invokeExact(callState, id, private_data, private_data_len);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_disconnect$MH =
            LIB.downcall("rdma_disconnect", FunctionDescriptor.of(JAVA_INT, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code int rdma_disconnect(struct rdma_cm_id *id);} errno lands in {@code callState}. */
    public static int rdma_disconnect(MemorySegment callState, MemorySegment id) {
        try {
            return (int)
                    Native.require(rdma_disconnect$MH, LIB, "rdma_disconnect").invokeExact(callState, id);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_get_cm_event$MH =
            LIB.downcall("rdma_get_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event);} EAGAIN on a non-blocking channel without events. errno lands in {@code callState}. */
    public static int rdma_get_cm_event(MemorySegment callState, MemorySegment channel, MemorySegment event) {
        try {
            return (int) Native.require(rdma_get_cm_event$MH, LIB, "rdma_get_cm_event")
                    .invokeExact(callState, channel, event);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_ack_cm_event$MH =
            LIB.downcall("rdma_ack_cm_event", FunctionDescriptor.of(JAVA_INT, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code int rdma_ack_cm_event(struct rdma_cm_event *event);} errno lands in {@code callState}. */
    public static int rdma_ack_cm_event(MemorySegment callState, MemorySegment event) {
        try {
            return (int) Native.require(rdma_ack_cm_event$MH, LIB, "rdma_ack_cm_event")
                    .invokeExact(callState, event);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_create_qp$MH = LIB.downcall(
            "rdma_create_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr);} errno lands in {@code callState}. */
    public static int rdma_create_qp(
            MemorySegment callState, MemorySegment id, MemorySegment pd, MemorySegment qp_init_attr) {
        try {
            return (int) Native.require(rdma_create_qp$MH, LIB, "rdma_create_qp")
                    .invokeExact(callState, id, pd, qp_init_attr);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_create_qp_ex$MH =
            LIB.downcall("rdma_create_qp_ex", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);

    /** {@code int rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *qp_init_attr);} errno lands in {@code callState}. */
    public static int rdma_create_qp_ex(MemorySegment callState, MemorySegment id, MemorySegment qp_init_attr) {
        try {
            return (int) Native.require(rdma_create_qp_ex$MH, LIB, "rdma_create_qp_ex")
                    .invokeExact(callState, id, qp_init_attr);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_destroy_qp$MH =
            LIB.downcall("rdma_destroy_qp", FunctionDescriptor.ofVoid(ADDRESS));

    /** {@code void rdma_destroy_qp(struct rdma_cm_id *id);} */
    public static void rdma_destroy_qp(MemorySegment id) {
        try {
            Native.require(rdma_destroy_qp$MH, LIB, "rdma_destroy_qp").invokeExact(id);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_get_src_port$MH =
            LIB.downcall("rdma_get_src_port", FunctionDescriptor.of(JAVA_SHORT, ADDRESS));

    /** {@code __be16 rdma_get_src_port(struct rdma_cm_id *id);} network byte order. */
    public static short rdma_get_src_port(MemorySegment id) {
        try {
            return (short) Native.require(rdma_get_src_port$MH, LIB, "rdma_get_src_port")
                    .invokeExact(id);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_get_dst_port$MH =
            LIB.downcall("rdma_get_dst_port", FunctionDescriptor.of(JAVA_SHORT, ADDRESS));

    /** {@code __be16 rdma_get_dst_port(struct rdma_cm_id *id);} network byte order. */
    public static short rdma_get_dst_port(MemorySegment id) {
        try {
            return (short) Native.require(rdma_get_dst_port$MH, LIB, "rdma_get_dst_port")
                    .invokeExact(id);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }

    private static final MethodHandle rdma_event_str$MH =
            LIB.downcall("rdma_event_str", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    /** {@code const char *rdma_event_str(enum rdma_cm_event_type event);} */
    public static MemorySegment rdma_event_str(int event) {
        try {
            return (MemorySegment)
                    Native.require(rdma_event_str$MH, LIB, "rdma_event_str").invokeExact(event);
        } catch (Throwable t) {
            throw verbs_h.rethrow(t);
        }
    }
}
