package org.panamardma.verbs.connection.agent;

import java.lang.foreign.MemorySegment;
import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;

/**
 * The responder's registrations, as the agent resolves an Atomic Request's STag against them: for a connection,
 * the memory regions of its protection domain ({@link #of(ProtectionDomain)}), which is where the device itself
 * would look. Tests and the fuzz target use plain segments.
 */
interface AtomicTargets {
    /** The region whose STag (rkey) is {@code stag}, or null if there is none. */
    Target find(int stag);

    /** One region: its tagged range and rights, and how to act on its memory while it stays registered. */
    interface Target {
        /** The tagged offset of the region's first byte: its virtual address (regions are registered with iova = VA). */
        long address();

        long length();

        Set<Access> access();

        /**
         * Executes {@code r} on the word at {@code offset} (in range and aligned: checked) while the region stays
         * registered.
         *
         * @throws IllegalStateException if the region was deregistered (or its memory freed) since it was found
         */
        long execute(long offset, AtomicRequest r);
    }

    static AtomicTargets of(ProtectionDomain pd) {
        return stag -> pd.regionByRkey(stag).map(RegionTarget::new).orElse(null);
    }

    /** A memory region of the connection's protection domain. */
    record RegionTarget(MemoryRegion mr) implements Target {
        @Override
        public long address() {
            return mr.address();
        }

        @Override
        public long length() {
            return mr.length();
        }

        @Override
        public Set<Access> access() {
            return mr.access();
        }

        /**
         * Under the region's monitor, which its close takes to deregister it (NativeResource): a region closed in
         * the meantime is refused, and one being used cannot be deregistered (nor its memory freed) until the
         * operation is done, as a device finishes an atomic before a deregistration completes.
         */
        @Override
        public long execute(long offset, AtomicRequest r) {
            synchronized (mr) {
                if (mr.isClosed()) {
                    throw new IllegalStateException(mr + " was deregistered");
                }
                return AtomicOps.execute(mr.segment(), offset, r);
            }
        }
    }

    /** A plain segment standing for a region (host tests, the fuzz target). */
    record SegmentTarget(MemorySegment memory, Set<Access> access) implements Target {
        @Override
        public long address() {
            return memory.address();
        }

        @Override
        public long length() {
            return memory.byteSize();
        }

        @Override
        public long execute(long offset, AtomicRequest r) {
            return AtomicOps.execute(memory, offset, r);
        }
    }
}
