package org.panamardma.verbs;

/**
 * One valid entry of a port's GID table ({@code struct ibv_gid_entry}).
 *
 * @param index       the entry's index in the port's table: the {@code sgid_index} of an address handle or QP
 * @param port        the port number, from 1
 * @param gid         the GID
 * @param type        IB/RoCE v1 or RoCE v2
 * @param netdevIndex the index of the network device the entry belongs to (RoCE), 0 on InfiniBand
 */
public record GidEntry(int index, int port, Gid gid, GidType type, int netdevIndex) {}
