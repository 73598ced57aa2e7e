package org.panamardma.testbed;

import java.net.InetAddress;
import java.util.Objects;
import java.util.Optional;

/**
 * An RDMA device handed to a test.
 *
 * @param name     the verbs device name, e.g. {@code rxe0}
 * @param transport its transport
 * @param netdev   the network interface it is bound to, e.g. {@code veth0}
 * @param ipv4     an IPv4 address of that interface usable by rdma_cm, if any
 * @param ipv6     a non-link-local IPv6 address of that interface usable by rdma_cm, if any
 * @param peerName the device on the other end of the wire (testbed layout), if known: a client on this device and
 *                 a server on the peer exchange real packets
 */
public record RdmaTestDevice(
        String name,
        Transport transport,
        String netdev,
        Optional<InetAddress> ipv4,
        Optional<InetAddress> ipv6,
        Optional<String> peerName) {
    /** Checks that every component is given (an absent address or peer is an empty Optional). */
    public RdmaTestDevice {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(ipv4, "ipv4");
        Objects.requireNonNull(ipv6, "ipv6");
        Objects.requireNonNull(peerName, "peerName");
    }

    /**
     * Looks up the peer device in the same discovery.
     *
     * @return the peer device; empty when this device has no known peer
     */
    public Optional<RdmaTestDevice> peer() {
        return peerName.flatMap(p -> TestbedDevices.discover().byName(p));
    }

    @Override
    public String toString() {
        return name + " (" + transport + " on " + netdev
                + ipv4.map(a -> " " + a.getHostAddress()).orElse("") + ")";
    }
}
