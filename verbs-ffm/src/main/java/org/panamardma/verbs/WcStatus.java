package org.panamardma.verbs;

/** {@code enum ibv_wc_status}: how a work request ended. */
public enum WcStatus {
    /** {@code IBV_WC_SUCCESS}: success. */
    SUCCESS("success"),
    /** {@code IBV_WC_LOC_LEN_ERR}: local length error. */
    LOC_LEN_ERR("local length error"),
    /** {@code IBV_WC_LOC_QP_OP_ERR}: local QP operation error. */
    LOC_QP_OP_ERR("local QP operation error"),
    /** {@code IBV_WC_LOC_EEC_OP_ERR}: local EE context operation error. */
    LOC_EEC_OP_ERR("local EE context operation error"),
    /** {@code IBV_WC_LOC_PROT_ERR}: local protection error. */
    LOC_PROT_ERR("local protection error"),
    /** {@code IBV_WC_WR_FLUSH_ERR}: Work Request Flushed Error. */
    WR_FLUSH_ERR("Work Request Flushed Error"),
    /** {@code IBV_WC_MW_BIND_ERR}: memory management operation error. */
    MW_BIND_ERR("memory management operation error"),
    /** {@code IBV_WC_BAD_RESP_ERR}: bad response error. */
    BAD_RESP_ERR("bad response error"),
    /** {@code IBV_WC_LOC_ACCESS_ERR}: local access error. */
    LOC_ACCESS_ERR("local access error"),
    /** {@code IBV_WC_REM_INV_REQ_ERR}: remote invalid request error. */
    REM_INV_REQ_ERR("remote invalid request error"),
    /** {@code IBV_WC_REM_ACCESS_ERR}: remote access error. */
    REM_ACCESS_ERR("remote access error"),
    /** {@code IBV_WC_REM_OP_ERR}: remote operation error. */
    REM_OP_ERR("remote operation error"),
    /** {@code IBV_WC_RETRY_EXC_ERR}: transport retry counter exceeded. */
    RETRY_EXC_ERR("transport retry counter exceeded"),
    /** {@code IBV_WC_RNR_RETRY_EXC_ERR}: RNR retry counter exceeded. */
    RNR_RETRY_EXC_ERR("RNR retry counter exceeded"),
    /** {@code IBV_WC_LOC_RDD_VIOL_ERR}: local RDD violation error. */
    LOC_RDD_VIOL_ERR("local RDD violation error"),
    /** {@code IBV_WC_REM_INV_RD_REQ_ERR}: remote invalid RD request. */
    REM_INV_RD_REQ_ERR("remote invalid RD request"),
    /** {@code IBV_WC_REM_ABORT_ERR}: aborted error. */
    REM_ABORT_ERR("aborted error"),
    /** {@code IBV_WC_INV_EECN_ERR}: invalid EE context number. */
    INV_EECN_ERR("invalid EE context number"),
    /** {@code IBV_WC_INV_EEC_STATE_ERR}: invalid EE context state. */
    INV_EEC_STATE_ERR("invalid EE context state"),
    /** {@code IBV_WC_FATAL_ERR}: fatal error. */
    FATAL_ERR("fatal error"),
    /** {@code IBV_WC_RESP_TIMEOUT_ERR}: response timeout error. */
    RESP_TIMEOUT_ERR("response timeout error"),
    /** {@code IBV_WC_GENERAL_ERR}: general error. */
    GENERAL_ERR("general error"),
    /** {@code IBV_WC_TM_ERR}: TM error. */
    TM_ERR("TM error"),
    /** {@code IBV_WC_TM_RNDV_INCOMPLETE}: TM software rendezvous. */
    TM_RNDV_INCOMPLETE("TM software rendezvous"),
    /** {@code IBV_WC_UNKNOWN}: unknown. */
    UNKNOWN("unknown");

    private static final WcStatus[] VALUES = values();
    private final String description;

    WcStatus(String description) {
        this.description = description;
    }

    /** {@return the C name, e.g. {@code IBV_WC_REM_ACCESS_ERR}} */
    public String cName() {
        return "IBV_WC_" + name();
    }

    /** {@return libibverbs' description ({@code ibv_wc_status_str})} */
    public String description() {
        return description;
    }

    static WcStatus of(int value) {
        return value >= 0 && value < UNKNOWN.ordinal() ? VALUES[value] : UNKNOWN;
    }
}
