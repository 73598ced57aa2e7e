package org.panamardma.verbs.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
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

    public static final int IBV_NODE_UNKNOWN = -1;
    public static final int IBV_NODE_CA = 1;
    public static final int IBV_NODE_SWITCH = 2;
    public static final int IBV_NODE_ROUTER = 3;
    public static final int IBV_NODE_RNIC = 4;
    public static final int IBV_NODE_USNIC = 5;
    public static final int IBV_NODE_USNIC_UDP = 6;
    public static final int IBV_NODE_UNSPECIFIED = 7;

    public static final int IBV_TRANSPORT_UNKNOWN = -1;
    public static final int IBV_TRANSPORT_IB = 0;
    public static final int IBV_TRANSPORT_IWARP = 1;
    public static final int IBV_TRANSPORT_USNIC = 2;
    public static final int IBV_TRANSPORT_USNIC_UDP = 3;
    public static final int IBV_TRANSPORT_UNSPECIFIED = 4;

    private static final Native.Library LIB = Native.IBVERBS;

    // struct ibv_device **ibv_get_device_list(int *num_devices);
    private static final MethodHandle ibv_get_device_list$MH = LIB.downcall("ibv_get_device_list",
            FunctionDescriptor.of(ADDRESS, ADDRESS), Native.CAPTURE_ERRNO);
    // void ibv_free_device_list(struct ibv_device **list);
    private static final MethodHandle ibv_free_device_list$MH = LIB.downcall("ibv_free_device_list",
            FunctionDescriptor.ofVoid(ADDRESS));
    // __be64 ibv_get_device_guid(struct ibv_device *device);
    private static final MethodHandle ibv_get_device_guid$MH = LIB.downcall("ibv_get_device_guid",
            FunctionDescriptor.of(JAVA_LONG, ADDRESS));

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
            return (long) Native.require(ibv_get_device_guid$MH, LIB, "ibv_get_device_guid").invokeExact(device);
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
