/**
 * Registered memory of RPC-over-RDMA, one home for the client and the server (not exported: the transports' own).
 *
 * <p>What each side may let its peer reach is in the types. Memory kept registered (a {@link
 * org.panamardma.rpcrdma.memory.BufferPool}'s slabs and buffers, a {@link
 * org.panamardma.rpcrdma.memory.RegistrationCache}'s entries) is registered through a {@link
 * org.panamardma.rpcrdma.memory.LocalRegistrar} with {@link org.panamardma.rpcrdma.memory.LocalRights}, which has
 * no remote right: its keys give a peer nothing. The server is built on a {@code LocalRegistrar} alone, so it
 * registers nothing for remote access. A remote right exists only as an {@link
 * org.panamardma.rpcrdma.memory.Exposure}: one chunk's segment of one client call, with that chunk's one right
 * ({@link org.panamardma.rpcrdma.memory.ChunkAccess}), made by a {@link org.panamardma.rpcrdma.memory.CallRegistrar}
 * (a registration for the call) or by {@link org.panamardma.rpcrdma.memory.MemoryWindows} (a type 2 window bound for
 * the call), and revoked before the call completes (RFC 8166 section 3.4.3).
 */
package org.panamardma.rpcrdma.memory;
