package org.panamardma.verbs;

import org.panamardma.verbs.ffi.verbs_h;

/**
 * The kinds of asynchronous event a device reports ({@code enum ibv_event_type}), grouped by what they are about:
 * a queue pair, a completion queue, a shared receive queue, a port, or the whole device.
 */
public enum AsyncEventType {
    /** {@code IBV_EVENT_CQ_ERR}. */
    CQ_ERR(verbs_h.IBV_EVENT_CQ_ERR, Subject.COMPLETION_QUEUE),
    /** {@code IBV_EVENT_QP_FATAL}. */
    QP_FATAL(verbs_h.IBV_EVENT_QP_FATAL, Subject.QUEUE_PAIR),
    /** {@code IBV_EVENT_QP_REQ_ERR}. */
    QP_REQ_ERR(verbs_h.IBV_EVENT_QP_REQ_ERR, Subject.QUEUE_PAIR),
    /** {@code IBV_EVENT_QP_ACCESS_ERR}. */
    QP_ACCESS_ERR(verbs_h.IBV_EVENT_QP_ACCESS_ERR, Subject.QUEUE_PAIR),
    /** {@code IBV_EVENT_COMM_EST}. */
    COMM_EST(verbs_h.IBV_EVENT_COMM_EST, Subject.QUEUE_PAIR),
    /** {@code IBV_EVENT_SQ_DRAINED}. */
    SQ_DRAINED(verbs_h.IBV_EVENT_SQ_DRAINED, Subject.QUEUE_PAIR),
    /** {@code IBV_EVENT_PATH_MIG}. */
    PATH_MIG(verbs_h.IBV_EVENT_PATH_MIG, Subject.QUEUE_PAIR),
    /** {@code IBV_EVENT_PATH_MIG_ERR}. */
    PATH_MIG_ERR(verbs_h.IBV_EVENT_PATH_MIG_ERR, Subject.QUEUE_PAIR),
    /** {@code IBV_EVENT_DEVICE_FATAL}. */
    DEVICE_FATAL(verbs_h.IBV_EVENT_DEVICE_FATAL, Subject.DEVICE),
    /** {@code IBV_EVENT_PORT_ACTIVE}. */
    PORT_ACTIVE(verbs_h.IBV_EVENT_PORT_ACTIVE, Subject.PORT),
    /** {@code IBV_EVENT_PORT_ERR}. */
    PORT_ERR(verbs_h.IBV_EVENT_PORT_ERR, Subject.PORT),
    /** {@code IBV_EVENT_LID_CHANGE}. */
    LID_CHANGE(verbs_h.IBV_EVENT_LID_CHANGE, Subject.PORT),
    /** {@code IBV_EVENT_PKEY_CHANGE}. */
    PKEY_CHANGE(verbs_h.IBV_EVENT_PKEY_CHANGE, Subject.PORT),
    /** {@code IBV_EVENT_SM_CHANGE}. */
    SM_CHANGE(verbs_h.IBV_EVENT_SM_CHANGE, Subject.PORT),
    /** {@code IBV_EVENT_SRQ_ERR}. */
    SRQ_ERR(verbs_h.IBV_EVENT_SRQ_ERR, Subject.SHARED_RECEIVE_QUEUE),
    /** {@code IBV_EVENT_SRQ_LIMIT_REACHED}. */
    SRQ_LIMIT_REACHED(verbs_h.IBV_EVENT_SRQ_LIMIT_REACHED, Subject.SHARED_RECEIVE_QUEUE),
    /** {@code IBV_EVENT_QP_LAST_WQE_REACHED}. */
    QP_LAST_WQE_REACHED(verbs_h.IBV_EVENT_QP_LAST_WQE_REACHED, Subject.QUEUE_PAIR),
    /** {@code IBV_EVENT_CLIENT_REREGISTER}. */
    CLIENT_REREGISTER(verbs_h.IBV_EVENT_CLIENT_REREGISTER, Subject.PORT),
    /** {@code IBV_EVENT_GID_CHANGE}. */
    GID_CHANGE(verbs_h.IBV_EVENT_GID_CHANGE, Subject.PORT),
    /** {@code IBV_EVENT_WQ_FATAL}. */
    WQ_FATAL(verbs_h.IBV_EVENT_WQ_FATAL, Subject.WORK_QUEUE),
    /** A value this library does not know (a newer rdma-core); {@link AsyncEvent#rawType()} has it. */
    UNKNOWN(-1, Subject.DEVICE);

    /** Which member of {@code ibv_async_event.element} the event names. */
    public enum Subject {
        /** A queue pair ({@code element.qp}). */
        QUEUE_PAIR,
        /** A completion queue ({@code element.cq}). */
        COMPLETION_QUEUE,
        /** A shared receive queue ({@code element.srq}). */
        SHARED_RECEIVE_QUEUE,
        /** A work queue ({@code element.wq}). */
        WORK_QUEUE,
        /** A port ({@code element.port_num}). */
        PORT,
        /** The whole device. */
        DEVICE
    }

    private final int value;
    private final Subject subject;

    AsyncEventType(int value, Subject subject) {
        this.value = value;
        this.subject = subject;
    }

    /** {@return the {@code IBV_EVENT_*} value (enum ibv_event_type, verbs.h)} */
    public int value() {
        return value;
    }

    /** {@return what the event is about: a queue pair, a CQ, an SRQ, a work queue, a port or the device} */
    public Subject subject() {
        return subject;
    }

    /** {@return whether the event means the object (or device) can no longer be used as it was} */
    public boolean isError() {
        return switch (this) {
            case CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, PATH_MIG_ERR, DEVICE_FATAL, PORT_ERR, SRQ_ERR, WQ_FATAL ->
                true;
            default -> false;
        };
    }

    /**
     * The type of the {@code IBV_EVENT_*} value {@code value}.
     *
     * @param value the {@code event_type} of a {@code struct ibv_async_event}
     * @return its type; {@link #UNKNOWN} for a value this enum does not know (a newer rdma-core)
     */
    public static AsyncEventType of(int value) {
        for (AsyncEventType t : values()) {
            if (t.value == value && t != UNKNOWN) {
                return t;
            }
        }
        return UNKNOWN;
    }
}
