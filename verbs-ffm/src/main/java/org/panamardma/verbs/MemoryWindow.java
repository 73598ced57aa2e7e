package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.VerbsOps;
import org.panamardma.verbs.ffi.ibv_mw;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * A type 2 memory window ({@code struct ibv_mw}, {@code ibv_alloc_mw(pd, IBV_MW_TYPE_2)}): a key a peer may use on one
 * range of a {@link MemoryRegion} with chosen rights, for as long as the window stays bound. A window starts free;
 * {@link QueuePair#postBindMemoryWindow} binds it (a work request: {@code IBV_WR_BIND_MW}, {@code ibv_wr_bind_mw}) to
 * that queue pair under a new key ({@link #nextRkey()}: the key byte bumped, as {@code ibv_inc_rkey} does), and
 * {@link QueuePair#postInvalidate} (or the peer's Send With Invalidate, {@link #invalidatedByPeer}) makes it free
 * again. Only the queue pair it was bound through may use it (InfiniBand C10-72), so it is the user-space form of the
 * kernel's fast registration: a region registered once without remote rights ({@link Access#MW_BIND}), exposed per
 * request and revoked after, with a key the peer has not seen before.
 *
 * <p>The window keeps track of its state as far as this process can know it: {@link #isBound()} is true from a bind
 * post until an invalidation post or {@link #invalidatedByPeer}. {@link QueuePair#postInvalidate} refuses a window
 * that is not bound: invalidating a free type 2 window is an error to the device, and rxe (Linux 6.12,
 * {@code rxe_do_invalidate_mw}) dereferences the free window's absent queue pair and region.
 *
 * <p>Close ({@code ibv_dealloc_mw}) revokes a bound window at once, without a work request; close windows bound to a
 * region before closing the region ({@code ibv_dereg_mr} fails while one is bound: rxe's {@code rxe_dereg_mr}
 * returns EINVAL, and the region then keeps its memory, see {@link MemoryRegion#deregistrationFailed()}).
 *
 * <p>What a window limits depends on the device. The InfiniBand specification has the responder check every access
 * against the window's range (o10-37.2.x); rxe (Linux 6.1 and 6.12, {@code check_rkey} in rxe_resp.c) checks it
 * against the range of the window's memory region only, so on rxe a window reaches the whole region it is bound to
 * (its rights and lifetime are enforced): bind windows to regions no larger than what the peer may touch.
 *
 * <p>Verb of {@link #close()}: {@code ibv_dealloc_mw}.
 */
@Verb("ibv_dealloc_mw")
public final class MemoryWindow extends NativeResource {
    private final ProtectionDomain pd;
    final MemorySegment handle;
    /** The current key: read by any thread, changed under this window's monitor by a bind post. */
    private volatile int rkey;
    /** Guarded by this. */
    private boolean bound;

    private MemoryWindow(ProtectionDomain pd, MemorySegment handle) {
        super("memory window", pd);
        this.pd = pd;
        this.handle = handle;
        this.rkey = handle.get(JAVA_INT, ibv_mw.rkey$OFFSET);
    }

    static MemoryWindow allocate(ProtectionDomain pd) throws RdmaException {
        Context ctx = pd.context;
        if (!ctx.attributes().supportsMemoryWindows()) {
            throw new UnsupportedOperationException("memory windows are not supported by " + ctx.deviceName()
                    + ": its device_cap_flags have neither IBV_DEVICE_MEM_WINDOW_TYPE_2A nor _2B");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = arena.allocate(Native.CALL_STATE);
            MemorySegment mw;
            try {
                mw = (MemorySegment)
                        VerbsOps.ALLOC_MW.invokeExact(ctx.allocMwFn, callState, pd.handle, verbs_h.IBV_MW_TYPE_2);
            } catch (Throwable t) {
                throw CompletionQueue.verbsError(t);
            }
            if (mw.equals(MemorySegment.NULL)) {
                int errno = Native.errno(callState);
                if (errno == Errno.EOPNOTSUPP) {
                    throw new UnsupportedOperationException("ibv_alloc_mw(IBV_MW_TYPE_2) on " + ctx.deviceName()
                            + ": the provider has no memory windows (EOPNOTSUPP)");
                }
                throw new RdmaException("ibv_alloc_mw(IBV_MW_TYPE_2) on " + ctx.deviceName(), errno);
            }
            return new MemoryWindow(pd, mw.reinterpret(ibv_mw.layout().byteSize()));
        }
    }

    /** {@return the protection domain the window was allocated in} */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /**
     * {@return the window's current key: the one its last bind chose (the provider's initial key before the first
     * bind)}
     */
    public int rkey() {
        return rkey;
    }

    /** {@return the key for the next bind: the current key with its low byte bumped ({@code ibv_inc_rkey})} */
    public int nextRkey() {
        return nextRkey(rkey);
    }

    /**
     * {@code ibv_inc_rkey}: {@code rkey} with its 8 low bits (the key a consumer owns) plus one, wrapping.
     *
     * @param rkey a key
     * @return the key with its low 8 bits incremented modulo 256, its high 24 bits (the provider's) unchanged
     */
    public static int nextRkey(int rkey) {
        return (rkey & ~0xff) | ((rkey + 1) & 0xff);
    }

    /** {@return whether a bind was posted and no invalidation since (neither posted nor reported by the peer)} */
    public synchronized boolean isBound() {
        return bound;
    }

    /**
     * Records that the peer invalidated the window: a receive completed with {@code IBV_WC_WITH_INV} naming
     * {@code invalidatedRkey}.
     *
     * @param invalidatedRkey the {@code invalidated_rkey} of the receive's completion
     * @return whether that was this window's current key while bound (it is free now); false changes nothing
     */
    public synchronized boolean invalidatedByPeer(int invalidatedRkey) {
        if (!bound || invalidatedRkey != rkey) {
            return false;
        }
        bound = false;
        return true;
    }

    /** For the bind post, under this monitor: the window is open, {@code newRkey} is one of its keys. */
    void checkBindable(int newRkey) {
        checkOpen();
        if ((newRkey & ~0xff) != (rkey & ~0xff)) {
            throw new IllegalArgumentException("key 0x" + Integer.toHexString(newRkey) + " is not one of "
                    + describe() + ": only the low byte of a window's key may change (" + "0x"
                    + Integer.toHexString(rkey & ~0xff) + "xx)");
        }
        if (bound) {
            throw new IllegalStateException(describe() + " is bound: a type 2 window is bound again only once "
                    + "invalidated (InfiniBand o10-37.2.30)");
        }
    }

    /**
     * After the bind post, under this monitor: the provider builds the next request for this window from
     * {@code ibv_mw.rkey}, which {@code ibv_wr_bind_mw} and {@code IBV_WR_BIND_MW} leave to the application.
     */
    void bound(int newRkey) {
        handle.set(JAVA_INT, ibv_mw.rkey$OFFSET, newRkey);
        rkey = newRkey;
        bound = true;
    }

    /** For the invalidation post, under this monitor. */
    void checkInvalidatable() {
        checkOpen();
        if (!bound) {
            throw new IllegalStateException(describe() + " is not bound: invalidating a free type 2 window is an "
                    + "error (and crashes rxe's kernel, rxe_do_invalidate_mw)");
        }
    }

    void invalidated() {
        bound = false;
    }

    @Override
    protected void destroy() {
        int rc;
        try {
            rc = (int) VerbsOps.DEALLOC_MW.invokeExact(pd.context.deallocMwFn, handle);
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
        if (rc != 0) {
            throw new IllegalStateException("ibv_dealloc_mw failed for " + describe() + ": " + Errno.name(rc));
        }
    }

    @Override
    protected String describe() {
        return "memory window (rkey 0x" + Integer.toHexString(rkey) + ") on " + pd.context.deviceName();
    }
}
