package org.panamardma.rpcrdma.client;

import java.lang.foreign.MemorySegment;
import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.RdmaException;

/**
 * What the client's chunk memory ({@link RegisteredBufferPool}, {@link RegistrationCache}, {@link ChunkMemory})
 * needs from a protection domain: {@code ibv_reg_mr} and {@code ibv_dereg_mr}. Kept behind this interface so that
 * the pool, the cache and the per-call path are tested on the host, counting registrations, without a device.
 * (Memory windows are {@link WindowBinder}'s.)
 */
interface ChunkRegistrar {
    /**
     * Registers caller-owned native memory in place ({@code ibv_reg_mr}); the caller keeps it alive until the
     * registration is deregistered.
     */
    Registration register(MemorySegment segment, Set<Access> access) throws RdmaException;

    /** One registered memory region. */
    interface Registration {
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
    }

    /** Registrations in {@code pd}, as {@link MemoryRegion}s. */
    static ChunkRegistrar of(ProtectionDomain pd) {
        return new ChunkRegistrar() {
            @Override
            public Registration register(MemorySegment segment, Set<Access> access) throws RdmaException {
                return new VerbsRegistration(pd.register(segment, access));
            }

        };
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
