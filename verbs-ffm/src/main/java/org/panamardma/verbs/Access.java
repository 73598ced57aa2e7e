package org.panamardma.verbs;

import java.util.Set;
import org.panamardma.verbs.ffi.verbs_h;

/** {@code enum ibv_access_flags}: what a memory region (or a remote peer through it) may do. */
public enum Access {
    /** The device may write into it (needed for receives, READ targets, atomics' results, and by remote write). */
    LOCAL_WRITE(verbs_h.IBV_ACCESS_LOCAL_WRITE),
    /** {@code IBV_ACCESS_REMOTE_WRITE}. */
    REMOTE_WRITE(verbs_h.IBV_ACCESS_REMOTE_WRITE),
    /** {@code IBV_ACCESS_REMOTE_READ}. */
    REMOTE_READ(verbs_h.IBV_ACCESS_REMOTE_READ),
    /** {@code IBV_ACCESS_REMOTE_ATOMIC}. */
    REMOTE_ATOMIC(verbs_h.IBV_ACCESS_REMOTE_ATOMIC),
    /** {@code IBV_ACCESS_MW_BIND}. */
    MW_BIND(verbs_h.IBV_ACCESS_MW_BIND),
    /** {@code IBV_ACCESS_ZERO_BASED}. */
    ZERO_BASED(verbs_h.IBV_ACCESS_ZERO_BASED),
    /** {@code IBV_ACCESS_ON_DEMAND}. */
    ON_DEMAND(verbs_h.IBV_ACCESS_ON_DEMAND),
    /** {@code IBV_ACCESS_HUGETLB}. */
    HUGETLB(verbs_h.IBV_ACCESS_HUGETLB),
    /** A peer may FLUSH it to global visibility (draft-talpey-rdma-commit section 4.1). */
    FLUSH_GLOBAL(verbs_h.IBV_ACCESS_FLUSH_GLOBAL),
    /** A peer may FLUSH it to persistence: rxe grants this only on persistent memory. */
    FLUSH_PERSISTENT(verbs_h.IBV_ACCESS_FLUSH_PERSISTENT),
    /** {@code IBV_ACCESS_RELAXED_ORDERING}. */
    RELAXED_ORDERING(verbs_h.IBV_ACCESS_RELAXED_ORDERING);

    private final int bit;

    Access(int bit) {
        this.bit = bit;
    }

    /** {@return the {@code IBV_ACCESS_*} bit of this flag (enum ibv_access_flags, verbs.h)} */
    public int bit() {
        return bit;
    }

    /**
     * The {@code IBV_ACCESS_*} bits of {@code access}, or-ed: what {@code ibv_reg_mr} takes.
     *
     * @param access the flags; an empty set grants local read only
     * @return the or-ed bits
     */
    public static int bits(Set<Access> access) {
        int b = 0;
        for (Access a : access) {
            b |= a.bit;
        }
        return b;
    }
}
