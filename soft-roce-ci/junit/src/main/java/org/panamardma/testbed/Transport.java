package org.panamardma.testbed;

/** What kind of RDMA device a test needs. */
public enum Transport {
    /** InfiniBand transport over Ethernet (RoCE v2): Soft-RoCE {@code rdma_rxe}, or a RoCE NIC. */
    ROCE,
    /** iWARP (RDMA over TCP): Soft-iWARP {@code siw}, or an iWARP NIC. */
    IWARP,
    /** InfiniBand transport over an InfiniBand link. */
    INFINIBAND,
    /** Any ACTIVE RDMA device. */
    ANY;

    boolean accepts(Transport actual) {
        return this == ANY || this == actual;
    }
}
