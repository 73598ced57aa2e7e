package org.panamardma.verbs;

/** {@code enum ibv_qp_state}. */
public enum QpState {
    /** {@code IBV_QPS_RESET}: just created or reset; nothing can be posted. */
    RESET,
    /** {@code IBV_QPS_INIT}: receives can be posted, nothing is processed. */
    INIT,
    /** {@code IBV_QPS_RTR}: ready to receive. */
    RTR,
    /** {@code IBV_QPS_RTS}: ready to send. */
    RTS,
    /** {@code IBV_QPS_SQD}: the send queue is draining. */
    SQD,
    /** {@code IBV_QPS_SQE}: the send queue is in error (unreliable transports only). */
    SQE,
    /** {@code IBV_QPS_ERR}: in error; posted requests complete flushed. */
    ERR,
    /** A value this library does not know. */
    UNKNOWN;

    static QpState of(int value) {
        return value >= 0 && value < UNKNOWN.ordinal() ? values()[value] : UNKNOWN;
    }
}
