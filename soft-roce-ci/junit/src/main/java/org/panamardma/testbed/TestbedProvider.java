package org.panamardma.testbed;

/**
 * Where device tests find their RDMA devices, in the order {@link ProviderChoice#choose()} tries them.
 */
public enum TestbedProvider {
    /** The machine's own devices: a real RNIC, or rxe/siw devices someone configured (also inside the testbed). */
    HOST,
    /**
     * The privileged container (soft-roce-ci/container): needs Docker and a host kernel with rdma_rxe and siw (loaded,
     * or loadable from /lib/modules); the container creates its own devices on veth pairs.
     */
    CONTAINER,
    /** The soft-RoCE / soft-iWARP VM (soft-roce-ci/bin/testbed): needs only qemu. */
    VM
}
