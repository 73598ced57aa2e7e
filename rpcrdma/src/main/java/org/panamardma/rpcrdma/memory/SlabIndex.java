package org.panamardma.rpcrdma.memory;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * A pool's slabs by base address, so that a call's segment is found in the pool (or not) without a lock: an array
 * replaced on every change (copy on write; slabs come and go far more rarely than calls look them up).
 */
final class SlabIndex {
    private volatile Slab[] slabs = new Slab[0];

    /** Adds {@code slab}; under the pool's monitor. */
    void add(Slab slab) {
        Slab[] grown = Arrays.copyOf(slabs, slabs.length + 1);
        grown[grown.length - 1] = slab;
        Arrays.sort(grown, (a, b) -> Long.compareUnsigned(a.base, b.base));
        slabs = grown;
    }

    /** Takes {@code slab} out, if it is in; under the pool's monitor. */
    void remove(Slab slab) {
        Slab[] s = slabs;
        for (int i = 0; i < s.length; i++) {
            if (s[i] == slab) {
                Slab[] left = Arrays.copyOf(s, s.length - 1);
                System.arraycopy(s, i + 1, left, i, s.length - i - 1);
                slabs = left;
                return;
            }
        }
    }

    /** @return the slabs now */
    List<Slab> all() {
        return List.of(slabs);
    }

    /** @return the slab {@code address} lies in, or null */
    Slab at(long address) {
        Slab[] s = slabs;
        int lo = 0;
        int hi = s.length - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            Slab m = s[mid];
            if (Long.compareUnsigned(address, m.base) < 0) {
                hi = mid - 1;
            } else if (Long.compareUnsigned(address, m.base + m.bytes) >= 0) {
                lo = mid + 1;
            } else {
                return m;
            }
        }
        return null;
    }

    /** @return the buffer {@code address} lies in, or null */
    Slot slotAt(long address) {
        Slab slab = at(address);
        return slab == null ? null : slab.slots[(int) ((address - slab.base) / slab.sizeClass.size)];
    }

    /**
     * @param segment memory handed to a call
     * @param pool names the pool in messages
     * @return the buffer {@code segment} lies in, or null if it is not memory of these slabs
     * @throws IllegalArgumentException if the segment spans two buffers
     */
    Slot slotHolding(MemorySegment segment, String pool) {
        if (!segment.isNative()) {
            return null;
        }
        Slab slab = at(segment.address());
        // the scope check keeps memory that merely has a pool address (say, MemorySegment.ofAddress) out
        if (slab == null || !slab.memory.scope().equals(segment.scope())) {
            return null;
        }
        long offset = segment.address() - slab.base;
        Slot slot = slab.slots[(int) (offset / slab.sizeClass.size)];
        if (offset + segment.byteSize() > slot.offset + slot.size()) {
            throw new IllegalArgumentException(pool + ": a segment of " + segment.byteSize() + " bytes at 0x"
                    + Long.toHexString(segment.address()) + " spans two pool buffers");
        }
        return slot;
    }
}
