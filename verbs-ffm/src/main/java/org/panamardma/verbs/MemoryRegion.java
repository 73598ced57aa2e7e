package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.Set;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.ibv_mr;
import org.panamardma.verbs.ffi.verbs_h;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registered memory ({@code struct ibv_mr}): the device may read and write it, with the {@link #lkey()} locally
 * and, where the access allows, peers with the {@link #rkey()}.
 *
 * <p>Verb of {@link #close()}: {@code ibv_dereg_mr}.
 */
@Verb("ibv_dereg_mr")
public final class MemoryRegion extends NativeResource {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryRegion.class);

    private final ProtectionDomain pd;
    /** The provider's ibv_mr: a window bind hands it to the provider, which reads its lkey during the post. */
    final MemorySegment handle;

    private final MemorySegment segment;
    private final Set<Access> access;
    private final Arena ownedMemory;
    private final int lkey;
    private final int rkey;
    /** Set when ibv_dereg_mr failed: the device may still access the memory, so it was leaked, not freed. */
    private volatile boolean deregistrationFailed;

    private MemoryRegion(
            ProtectionDomain pd, MemorySegment handle, MemorySegment segment, Set<Access> access, Arena ownedMemory) {
        super("memory region", pd);
        this.pd = pd;
        this.handle = handle;
        this.segment = segment;
        this.access = Collections.unmodifiableSet(access);
        this.ownedMemory = ownedMemory;
        this.lkey = handle.get(JAVA_INT, ibv_mr.lkey$OFFSET);
        this.rkey = handle.get(JAVA_INT, ibv_mr.rkey$OFFSET);
    }

    static MemoryRegion register(ProtectionDomain pd, MemorySegment segment, Set<Access> access, Arena owned)
            throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = arena.allocate(Native.CALL_STATE);
            MemorySegment mr = verbs_h.ibv_reg_mr_iova2(
                    callState, pd.handle, segment, segment.byteSize(), segment.address(), Access.bits(access));
            if (mr.equals(MemorySegment.NULL)) {
                int errno = Native.errno(callState);
                String hint = access.contains(Access.FLUSH_PERSISTENT) && errno == Errno.EINVAL
                        ? " (FLUSH_PERSISTENT needs persistent memory, e.g. mapped from a device-DAX /dev/daxN.M)"
                        : "";
                throw new RdmaException("ibv_reg_mr(" + segment.byteSize() + " bytes, " + access + ")" + hint, errno);
            }
            return new MemoryRegion(pd, mr.reinterpret(ibv_mr.layout().byteSize()), segment, access, owned);
        }
    }

    /** {@return the protection domain it is registered in} */
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    /** {@return the registered memory. Valid while this region is open} */
    public MemorySegment segment() {
        return segment;
    }

    /** {@return the address of its first byte: what a peer's RDMA addresses it by} */
    public long address() {
        return segment.address();
    }

    /** {@return its length in bytes} */
    public long length() {
        return segment.byteSize();
    }

    /** {@return the local key: what this side's work requests name it by} */
    public int lkey() {
        return lkey;
    }

    /** {@return the remote key: what a peer's RDMA names it by (meaningful only with a remote access flag)} */
    public int rkey() {
        return rkey;
    }

    /** {@return the access the region was registered with} */
    public Set<Access> access() {
        return access;
    }

    /** {@return what a peer needs to address this whole region: address, length and rkey} */
    public RemoteRegion remote() {
        return new RemoteRegion(address(), length(), rkey);
    }

    /**
     * A part of this region as a peer addresses it.
     *
     * @param offset bytes from the region's start
     * @param length bytes of the part
     * @return the part's address, length and this region's rkey
     * @throws IndexOutOfBoundsException if the part is not within the region
     * @throws IllegalStateException if the region is closed or its memory freed
     */
    public RemoteRegion remote(long offset, long length) {
        checkRange(offset, length);
        return new RemoteRegion(address() + offset, length, rkey);
    }

    /**
     * {@return whether closing this region failed to deregister it ({@code ibv_dereg_mr} returned an error)}
     * Its memory was then deliberately left allocated, since the device may still read or write it; memory the caller
     * registered must not be freed either.
     */
    public boolean deregistrationFailed() {
        return deregistrationFailed;
    }

    /**
     * Checks that the region is open and [offset, offset+length) lies in it and its memory is alive; for the data
     * path, without this region's monitor (so it can be closed right after: posts that dereference the memory
     * copy it under its arena's protection, see QueuePair, the others hand the device only the lkey, which the
     * kernel refuses once deregistered).
     */
    void checkRange(long offset, long length) {
        if (offset < 0 || length < 0 || offset > segment.byteSize() - length) {
            throw new IndexOutOfBoundsException("range [" + offset + ", +" + length + ") outside " + describe());
        }
        checkOpen();
        if (!segment.scope().isAlive()) {
            throw new IllegalStateException("the memory of " + describe() + " was freed (its arena is closed)");
        }
    }

    @Override
    protected void destroy() {
        String what = describe();
        pd.forget(this);
        int rc = verbs_h.ibv_dereg_mr(handle);
        pd.countDeregistration();
        if (rc != 0) {
            deregistrationFailed = true;
        }
        releaseAfterDeregistration(rc, ownedMemory, what);
    }

    /**
     * Frees the memory owned by a region once {@code ibv_dereg_mr} returned {@code rc}; on failure leaves it
     * allocated. A region the kernel did not deregister may still be read and written by the device (DMA into
     * memory the JVM reuses would corrupt it silently), so a failed deregistration leaks the memory on purpose,
     * logs a WARNING naming the region and throws. Package-private for the host test of that decision.
     *
     * @throws IllegalStateException if {@code rc} is not 0
     */
    static void releaseAfterDeregistration(int rc, Arena ownedMemory, String region) {
        if (rc != 0) {
            String why = rc == Errno.EINVAL || rc == Errno.EBUSY
                    ? " (is a memory window still bound to it? invalidate or close windows before their region)"
                    : "";
            String memory = ownedMemory != null
                    ? "its memory is deliberately leaked (not freed)"
                    : "the memory it was registered over must not be freed by its owner";
            LOG.warn("ibv_dereg_mr failed (" + Errno.name(rc) + ") for " + region
                    + ": the device may still access it, so " + memory + why);
            throw new IllegalStateException(
                    "ibv_dereg_mr failed for " + region + ": " + Errno.name(rc) + "; " + memory + why);
        }
        if (ownedMemory != null) {
            ownedMemory.close();
        }
    }

    @Override
    protected String describe() {
        return "memory region of " + segment.byteSize() + " bytes (rkey 0x" + Integer.toHexString(rkey) + ") on "
                + pd.context.deviceName();
    }
}
