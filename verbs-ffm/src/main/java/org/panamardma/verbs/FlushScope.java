package org.panamardma.verbs;

import org.panamardma.verbs.ffi.verbs_h;

/** Which memory an RDMA FLUSH covers (draft-talpey-rdma-commit section 4.1, Selectivity Level). */
public enum FlushScope {
    /** The given address range. */
    RANGE(verbs_h.IBV_FLUSH_RANGE),
    /** The whole memory region of the rkey (address and length are ignored). */
    MEMORY_REGION(verbs_h.IBV_FLUSH_MR);

    final int value;

    FlushScope(int value) {
        this.value = value;
    }
}
