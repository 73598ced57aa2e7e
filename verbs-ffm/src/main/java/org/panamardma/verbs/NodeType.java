package org.panamardma.verbs;

import org.panamardma.verbs.ffi.verbs_h;

/** {@code enum ibv_node_type}. */
public enum NodeType {
    /** {@code IBV_NODE_UNKNOWN}. */
    UNKNOWN(verbs_h.IBV_NODE_UNKNOWN),
    /** Channel adapter: InfiniBand and RoCE HCAs. */
    CA(verbs_h.IBV_NODE_CA),
    /** {@code IBV_NODE_SWITCH}. */
    SWITCH(verbs_h.IBV_NODE_SWITCH),
    /** {@code IBV_NODE_ROUTER}. */
    ROUTER(verbs_h.IBV_NODE_ROUTER),
    /** RDMA NIC: iWARP devices. */
    RNIC(verbs_h.IBV_NODE_RNIC),
    /** {@code IBV_NODE_USNIC}. */
    USNIC(verbs_h.IBV_NODE_USNIC),
    /** {@code IBV_NODE_USNIC_UDP}. */
    USNIC_UDP(verbs_h.IBV_NODE_USNIC_UDP),
    /** {@code IBV_NODE_UNSPECIFIED}. */
    UNSPECIFIED(verbs_h.IBV_NODE_UNSPECIFIED);

    private final int value;

    NodeType(int value) {
        this.value = value;
    }

    /** {@return the {@code IBV_NODE_*} value (enum ibv_node_type)} */
    public int value() {
        return value;
    }

    /**
     * The node type of the {@code IBV_NODE_*} value {@code value}.
     *
     * @param value the {@code node_type} of a {@code struct ibv_device}
     * @return its type; {@link #UNKNOWN} for a value this enum does not know
     */
    public static NodeType of(int value) {
        for (NodeType t : values()) {
            if (t.value == value) {
                return t;
            }
        }
        return UNKNOWN;
    }
}
