package org.panamardma.verbs;

/** One valid entry of a port's GID table ({@code struct ibv_gid_entry}). */
public record GidEntry(int index, int port, Gid gid, GidType type, int netdevIndex) {}
