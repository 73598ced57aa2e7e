package org.panamardma.verbs;

import org.panamardma.verbs.ffi.verbs_h;

/** {@code enum ibv_wc_opcode}: what a completed work request was. Only valid in successful completions. */
public enum WcOpcode {
    /** {@code IBV_WC_SEND}. */
    SEND(verbs_h.IBV_WC_SEND),
    /** {@code IBV_WC_RDMA_WRITE}. */
    RDMA_WRITE(verbs_h.IBV_WC_RDMA_WRITE),
    /** {@code IBV_WC_RDMA_READ}. */
    RDMA_READ(verbs_h.IBV_WC_RDMA_READ),
    /** {@code IBV_WC_COMP_SWAP}. */
    COMP_SWAP(verbs_h.IBV_WC_COMP_SWAP),
    /** {@code IBV_WC_FETCH_ADD}. */
    FETCH_ADD(verbs_h.IBV_WC_FETCH_ADD),
    /** {@code IBV_WC_BIND_MW}. */
    BIND_MW(verbs_h.IBV_WC_BIND_MW),
    /** {@code IBV_WC_LOCAL_INV}. */
    LOCAL_INV(verbs_h.IBV_WC_LOCAL_INV),
    /** {@code IBV_WC_TSO}. */
    TSO(verbs_h.IBV_WC_TSO),
    /** {@code IBV_WC_FLUSH}. */
    FLUSH(verbs_h.IBV_WC_FLUSH),
    /** {@code IBV_WC_ATOMIC_WRITE}. */
    ATOMIC_WRITE(verbs_h.IBV_WC_ATOMIC_WRITE),
    /** A receive consumed by a SEND (with or without immediate data). */
    RECV(verbs_h.IBV_WC_RECV),
    /** A receive consumed by an RDMA WRITE with immediate data. */
    RECV_RDMA_WITH_IMM(verbs_h.IBV_WC_RECV_RDMA_WITH_IMM),
    /** An opcode this library does not know. */
    UNKNOWN(-1);

    private final int value;

    WcOpcode(int value) {
        this.value = value;
    }

    static WcOpcode of(int value) {
        return switch (value) {
            case verbs_h.IBV_WC_SEND -> SEND;
            case verbs_h.IBV_WC_RDMA_WRITE -> RDMA_WRITE;
            case verbs_h.IBV_WC_RDMA_READ -> RDMA_READ;
            case verbs_h.IBV_WC_COMP_SWAP -> COMP_SWAP;
            case verbs_h.IBV_WC_FETCH_ADD -> FETCH_ADD;
            case verbs_h.IBV_WC_BIND_MW -> BIND_MW;
            case verbs_h.IBV_WC_LOCAL_INV -> LOCAL_INV;
            case verbs_h.IBV_WC_TSO -> TSO;
            case verbs_h.IBV_WC_FLUSH -> FLUSH;
            case verbs_h.IBV_WC_ATOMIC_WRITE -> ATOMIC_WRITE;
            case verbs_h.IBV_WC_RECV -> RECV;
            case verbs_h.IBV_WC_RECV_RDMA_WITH_IMM -> RECV_RDMA_WITH_IMM;
            default -> UNKNOWN;
        };
    }

    /** {@return the {@code IBV_WC_*} value (enum ibv_wc_opcode)} */
    public int value() {
        return value;
    }

    /** {@return whether this completes a receive (as opposed to a send-queue work request)} */
    public boolean isReceive() {
        return this == RECV || this == RECV_RDMA_WITH_IMM;
    }
}
