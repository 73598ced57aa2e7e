package org.panamardma.rpcrdma.memory;

import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.MemoryRegion;

/**
 * One registered memory region as the memory package sees it, so that pools, the cache and the per-call path are
 * tested on the host with a fake that counts registrations ({@code FakeRegistrar}); on a device it is a
 * {@link MemoryRegion} ({@link #region(Registration)}).
 */
public interface Registration {
    /** @return the registered memory */
    MemorySegment segment();

    /** @return the key a peer addresses the memory with (RFC 8166 section 3.4.3: the segment's handle) */
    int rkey();

    /**
     * Deregisters ({@code ibv_dereg_mr}): when it returns, the key reaches nothing. Idempotent.
     *
     * @throws IllegalStateException if the deregistration failed: the device may still access the memory, so it
     *     must not be freed
     */
    void deregister();

    /**
     * @return the device's region behind {@code r}, to post work requests from or bind windows to
     * @throws IllegalArgumentException if {@code r} was not made on a device (a host test's fake)
     */
    static MemoryRegion region(Registration r) {
        if (r instanceof VerbsRegistration v) {
            return v.region();
        }
        throw new IllegalArgumentException("not a device registration: " + r);
    }

    /** A {@link MemoryRegion} as a {@link Registration}. */
    record VerbsRegistration(MemoryRegion region) implements Registration {
        @Override
        public MemorySegment segment() {
            return region.segment();
        }

        @Override
        public int rkey() {
            return region.rkey();
        }

        @Override
        public void deregister() {
            region.close();
        }
    }
}
