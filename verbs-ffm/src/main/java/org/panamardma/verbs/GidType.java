package org.panamardma.verbs;

/** {@code enum ibv_gid_type}. RoCE v2 GIDs are routable (UDP/IP encapsulation). */
public enum GidType {
    IB, ROCE_V1, ROCE_V2, UNKNOWN;

    static GidType of(int value) {
        return value >= 0 && value <= 2 ? values()[value] : UNKNOWN;
    }
}
