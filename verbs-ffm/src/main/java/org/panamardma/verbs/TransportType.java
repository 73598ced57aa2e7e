package org.panamardma.verbs;

import org.panamardma.verbs.ffi.verbs_h;

/** {@code enum ibv_transport_type}: the transport a device speaks. Soft-RoCE is {@link #INFINIBAND}. */
public enum TransportType {
    /** {@code IBV_TRANSPORT_UNKNOWN}. */
    UNKNOWN(verbs_h.IBV_TRANSPORT_UNKNOWN),
    /** InfiniBand transport: InfiniBand and RoCE devices (rdma_rxe included). */
    INFINIBAND(verbs_h.IBV_TRANSPORT_IB),
    /** iWARP: RDMA over TCP (siw included). */
    IWARP(verbs_h.IBV_TRANSPORT_IWARP),
    /** {@code IBV_TRANSPORT_USNIC}. */
    USNIC(verbs_h.IBV_TRANSPORT_USNIC),
    /** {@code IBV_TRANSPORT_USNIC_UDP}. */
    USNIC_UDP(verbs_h.IBV_TRANSPORT_USNIC_UDP),
    /** {@code IBV_TRANSPORT_UNSPECIFIED}. */
    UNSPECIFIED(verbs_h.IBV_TRANSPORT_UNSPECIFIED);

    private final int value;

    TransportType(int value) {
        this.value = value;
    }

    /** {@return the {@code IBV_TRANSPORT_*} value (enum ibv_transport_type)} */
    public int value() {
        return value;
    }

    /**
     * The transport of the {@code IBV_TRANSPORT_*} value {@code value}.
     *
     * @param value the {@code transport_type} of a {@code struct ibv_device}
     * @return its transport; {@link #UNKNOWN} for a value this enum does not know
     */
    public static TransportType of(int value) {
        for (TransportType t : values()) {
            if (t.value == value) {
                return t;
            }
        }
        return UNKNOWN;
    }
}
