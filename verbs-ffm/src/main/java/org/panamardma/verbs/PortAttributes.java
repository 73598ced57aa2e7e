package org.panamardma.verbs;

/**
 * What {@code ibv_query_port} reports of one port.
 *
 * @param port           the port number, from 1
 * @param state          the port's logical state; only ACTIVE carries traffic
 * @param maxMtu         the largest MTU the port supports
 * @param activeMtu      the MTU in use: the largest message of UD, and the packet size of RC
 * @param gidTableLength entries of the port's GID table
 * @param lid            the port's local identifier (InfiniBand); 0 on RoCE and iWARP
 * @param linkLayer      InfiniBand or Ethernet
 * @param maxMessageSize the largest message the port transfers, in bytes
 * @param portCapFlags   the {@code IBV_PORT_*} capability bits
 */
public record PortAttributes(
        int port,
        PortState state,
        Mtu maxMtu,
        Mtu activeMtu,
        int gidTableLength,
        int lid,
        LinkLayer linkLayer,
        long maxMessageSize,
        int portCapFlags) {}
