package org.panamardma.verbs;

/** What {@code ibv_query_port} reports of one port. */
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
