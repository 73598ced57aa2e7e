package org.panamardma.verbs.cm;

import org.panamardma.verbs.ffi.rdma_cma_h;

/** The rdma_cm port space of an id ({@code enum rdma_port_space}): what kind of QP it connects. */
public enum PortSpace {
    /** Reliable connected QPs, addressed like TCP ports: what RDMA applications (NFS/RDMA, rping) use. */
    TCP(rdma_cma_h.RDMA_PS_TCP),
    /** Reliable connected QPs in the native InfiniBand port space. */
    IB(rdma_cma_h.RDMA_PS_IB);

    private final int value;

    PortSpace(int value) {
        this.value = value;
    }

    /** {@return the {@code RDMA_PS_*} value of {@code enum rdma_port_space}} */
    public int value() {
        return value;
    }
}
