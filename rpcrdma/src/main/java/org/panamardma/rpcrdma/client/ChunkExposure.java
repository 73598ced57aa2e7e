package org.panamardma.rpcrdma.client;

/**
 * How an {@link RpcRdmaClient} lets the server reach a call's chunks (RFC 8166 section 3.4.3: a segment's handle,
 * length and offset), and so what a server can touch of the client's memory. Every mode exposes exactly the bytes of
 * the call's own segments (a Read chunk for RDMA Read only, a Write or Reply chunk for RDMA Write only), from the
 * moment the call is sent until its reply, error or timeout is handed to the caller: before the future completes, the
 * handles are revoked and the server's later accesses fail with a remote access error (which ends the connection).
 * This is what Linux's client promises with FRWR (net/sunrpc/xprtrdma/frwr_ops.c: one registration per segment, the
 * key byte bumped per map, LOCAL_INV before the reply is handed up). The modes differ in cost and in what they need
 * of the device.
 */
public enum ChunkExposure {
    /**
     * {@link #MEMORY_WINDOWS} where the device has type 2 memory windows without a known defect, else
     * {@link #PER_CALL_REGISTRATION}. On the testbed's devices that is per-call registration: siw has no windows,
     * and rxe's windows reach their whole region and a free one crashes the kernel when the peer invalidates it
     * ({@code DeviceAttributes.memoryWindowDefect()}).
     */
    AUTO,

    /**
     * Each segment is a type 2 memory window bound for the call, over exactly the segment, with the chunk's one
     * right and a new key (the window's key byte bumped on every bind), and invalidated ({@code IBV_WR_LOCAL_INV})
     * before the call completes. The windows are bound to memory registered once, without any remote right: pool
     * buffers (a region per buffer) and, through the registration cache, the caller's own native memory (a region
     * per segment exactly, reused while the segment's arena is alive): in steady state no {@code ibv_reg_mr} per
     * call, and a region's own key gives the server nothing. Refused at connect where the device has no windows.
     * On rxe a window is checked against its region only, which is then one pool buffer or exactly the caller's
     * segment, and a server that sends with invalidate naming a key after its call can crash the client's kernel:
     * use this mode on rxe only with servers trusted that far.
     */
    MEMORY_WINDOWS,

    /**
     * Each segment is registered ({@code ibv_reg_mr}) for the call, over exactly the segment, with the chunk's one
     * right, and deregistered before the call completes: a new key per segment per call, on any device, at the cost
     * of a registration and a deregistration per chunk (calls without chunks, such as NULL or small GETATTRs,
     * register nothing).
     */
    PER_CALL_REGISTRATION
}
