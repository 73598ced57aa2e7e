package org.panamardma.verbs;

/** {@code enum ibv_wc_status}: how a work request ended. */
public enum WcStatus {
    SUCCESS("success"),
    LOC_LEN_ERR("local length error"),
    LOC_QP_OP_ERR("local QP operation error"),
    LOC_EEC_OP_ERR("local EE context operation error"),
    LOC_PROT_ERR("local protection error"),
    WR_FLUSH_ERR("Work Request Flushed Error"),
    MW_BIND_ERR("memory management operation error"),
    BAD_RESP_ERR("bad response error"),
    LOC_ACCESS_ERR("local access error"),
    REM_INV_REQ_ERR("remote invalid request error"),
    REM_ACCESS_ERR("remote access error"),
    REM_OP_ERR("remote operation error"),
    RETRY_EXC_ERR("transport retry counter exceeded"),
    RNR_RETRY_EXC_ERR("RNR retry counter exceeded"),
    LOC_RDD_VIOL_ERR("local RDD violation error"),
    REM_INV_RD_REQ_ERR("remote invalid RD request"),
    REM_ABORT_ERR("aborted error"),
    INV_EECN_ERR("invalid EE context number"),
    INV_EEC_STATE_ERR("invalid EE context state"),
    FATAL_ERR("fatal error"),
    RESP_TIMEOUT_ERR("response timeout error"),
    GENERAL_ERR("general error"),
    TM_ERR("TM error"),
    TM_RNDV_INCOMPLETE("TM software rendezvous"),
    UNKNOWN("unknown");

    private static final WcStatus[] VALUES = values();
    private final String description;

    WcStatus(String description) {
        this.description = description;
    }

    /** The C name, e.g. {@code IBV_WC_REM_ACCESS_ERR}. */
    public String cName() {
        return "IBV_WC_" + name();
    }

    /** libibverbs' description ({@code ibv_wc_status_str}). */
    public String description() {
        return description;
    }

    static WcStatus of(int value) {
        return value >= 0 && value < UNKNOWN.ordinal() ? VALUES[value] : UNKNOWN;
    }
}
