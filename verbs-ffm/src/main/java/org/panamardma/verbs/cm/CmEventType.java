package org.panamardma.verbs.cm;

import org.panamardma.verbs.ffi.rdma_cma_h;

/** The rdma_cm event types ({@code enum rdma_cm_event_type} of {@code <rdma/rdma_cma.h>}), each with its C name. */
public enum CmEventType {
    /** {@link CmId#resolveAddress} succeeded: the id is bound to a local device. */
    ADDR_RESOLVED(rdma_cma_h.RDMA_CM_EVENT_ADDR_RESOLVED, "RDMA_CM_EVENT_ADDR_RESOLVED"),
    /** Address resolution failed; the status says why (e.g. -ETIMEDOUT, -ENODEV, -EHOSTUNREACH). */
    ADDR_ERROR(rdma_cma_h.RDMA_CM_EVENT_ADDR_ERROR, "RDMA_CM_EVENT_ADDR_ERROR"),
    /** {@link CmId#resolveRoute} succeeded. */
    ROUTE_RESOLVED(rdma_cma_h.RDMA_CM_EVENT_ROUTE_RESOLVED, "RDMA_CM_EVENT_ROUTE_RESOLVED"),
    /** {@code RDMA_CM_EVENT_ROUTE_ERROR}. */
    ROUTE_ERROR(rdma_cma_h.RDMA_CM_EVENT_ROUTE_ERROR, "RDMA_CM_EVENT_ROUTE_ERROR"),
    /** On a listening id: a peer wants to connect. The event's {@link CmEvent#id()} is the new id for it. */
    CONNECT_REQUEST(rdma_cma_h.RDMA_CM_EVENT_CONNECT_REQUEST, "RDMA_CM_EVENT_CONNECT_REQUEST"),
    /** Active side, only when the id has no QP (librdmacm turns it into ESTABLISHED when it has one). */
    CONNECT_RESPONSE(rdma_cma_h.RDMA_CM_EVENT_CONNECT_RESPONSE, "RDMA_CM_EVENT_CONNECT_RESPONSE"),
    /** {@code RDMA_CM_EVENT_CONNECT_ERROR}. */
    CONNECT_ERROR(rdma_cma_h.RDMA_CM_EVENT_CONNECT_ERROR, "RDMA_CM_EVENT_CONNECT_ERROR"),
    /** The peer did not answer (IB CM timeout, TCP connect timeout). */
    UNREACHABLE(rdma_cma_h.RDMA_CM_EVENT_UNREACHABLE, "RDMA_CM_EVENT_UNREACHABLE"),
    /** The peer (its application, or its CM when nobody listens) refused the connection. */
    REJECTED(rdma_cma_h.RDMA_CM_EVENT_REJECTED, "RDMA_CM_EVENT_REJECTED"),
    /** {@code RDMA_CM_EVENT_ESTABLISHED}. */
    ESTABLISHED(rdma_cma_h.RDMA_CM_EVENT_ESTABLISHED, "RDMA_CM_EVENT_ESTABLISHED"),
    /** {@code RDMA_CM_EVENT_DISCONNECTED}. */
    DISCONNECTED(rdma_cma_h.RDMA_CM_EVENT_DISCONNECTED, "RDMA_CM_EVENT_DISCONNECTED"),
    /** {@code RDMA_CM_EVENT_DEVICE_REMOVAL}. */
    DEVICE_REMOVAL(rdma_cma_h.RDMA_CM_EVENT_DEVICE_REMOVAL, "RDMA_CM_EVENT_DEVICE_REMOVAL"),
    /** {@code RDMA_CM_EVENT_MULTICAST_JOIN}. */
    MULTICAST_JOIN(rdma_cma_h.RDMA_CM_EVENT_MULTICAST_JOIN, "RDMA_CM_EVENT_MULTICAST_JOIN"),
    /** {@code RDMA_CM_EVENT_MULTICAST_ERROR}. */
    MULTICAST_ERROR(rdma_cma_h.RDMA_CM_EVENT_MULTICAST_ERROR, "RDMA_CM_EVENT_MULTICAST_ERROR"),
    /** {@code RDMA_CM_EVENT_ADDR_CHANGE}. */
    ADDR_CHANGE(rdma_cma_h.RDMA_CM_EVENT_ADDR_CHANGE, "RDMA_CM_EVENT_ADDR_CHANGE"),
    /** InfiniBand/RoCE: the QP left its time-wait state after a disconnect. */
    TIMEWAIT_EXIT(rdma_cma_h.RDMA_CM_EVENT_TIMEWAIT_EXIT, "RDMA_CM_EVENT_TIMEWAIT_EXIT");

    private static final CmEventType[] BY_VALUE = values();

    private final int value;
    private final String cName;

    CmEventType(int value, String cName) {
        this.value = value;
        this.cName = cName;
    }

    /** {@return the C enum value ({@code enum rdma_cm_event_type} in rdma_cma.h)} */
    public int value() {
        return value;
    }

    /** {@return the C enum constant's name, e.g. {@code RDMA_CM_EVENT_ESTABLISHED}} */
    public String cName() {
        return cName;
    }

    /** {@return whether this event ends a connection attempt unsuccessfully} */
    public boolean isConnectFailure() {
        return this == CONNECT_ERROR
                || this == UNREACHABLE
                || this == REJECTED
                || this == ADDR_ERROR
                || this == ROUTE_ERROR;
    }

    /**
     * The type of the {@code RDMA_CM_EVENT_*} value {@code value}.
     *
     * @param value an {@code RDMA_CM_EVENT_*} value from {@code struct rdma_cm_event}
     * @return its type
     * @throws IllegalArgumentException if librdmacm sent a value this enum does not know (a newer rdma-core)
     */
    public static CmEventType of(int value) {
        for (CmEventType t : BY_VALUE) {
            if (t.value == value) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown rdma_cm event type " + value);
    }
}
