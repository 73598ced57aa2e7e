package org.panamardma.verbs;

/** {@code enum ibv_gid_type}. RoCE v2 GIDs are routable (UDP/IP encapsulation). */
public enum GidType {
    /** {@code IBV_GID_TYPE_IB}: an InfiniBand GID. */
    IB,
    /** {@code IBV_GID_TYPE_ROCE_V1}: RoCE v1 (Ethernet, not routable). */
    ROCE_V1,
    /** {@code IBV_GID_TYPE_ROCE_V2}: RoCE v2 (UDP/IP, routable). */
    ROCE_V2,
    /** A value this library does not know. */
    UNKNOWN;

    static GidType of(int value) {
        return value >= 0 && value <= 2 ? values()[value] : UNKNOWN;
    }
}
