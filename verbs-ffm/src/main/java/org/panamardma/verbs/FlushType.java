package org.panamardma.verbs;

import org.panamardma.verbs.ffi.verbs_h;

/** What an RDMA FLUSH makes of the flushed data (draft-talpey-rdma-commit section 4.1, Placement Type). */
public enum FlushType {
    /** Globally visible: later reads by any agent at the responder see it. */
    GLOBAL_VISIBILITY(verbs_h.IBV_FLUSH_GLOBAL, Access.FLUSH_GLOBAL),
    /** Persistent: it survives power loss (needs persistent memory at the responder). */
    PERSISTENCE(verbs_h.IBV_FLUSH_PERSISTENT, Access.FLUSH_PERSISTENT);

    final int value;
    final Access requiredAccess;

    FlushType(int value, Access requiredAccess) {
        this.value = value;
        this.requiredAccess = requiredAccess;
    }

    /** {@return the access the responder's memory region must grant} */
    public Access requiredAccess() {
        return requiredAccess;
    }
}
