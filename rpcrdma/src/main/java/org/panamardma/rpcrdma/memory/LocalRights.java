package org.panamardma.rpcrdma.memory;

import java.util.Set;
import org.panamardma.verbs.Access;

/**
 * The rights of memory registered to be kept (pool slabs and buffers, cached registrations): local ones only, so
 * that a key of such a registration gives a peer nothing, however long it lives. No constant here has a remote
 * right, and {@link LocalRegistrar} registers with nothing else: a remote right exists only for one call's segment
 * ({@link CallRegistrar}, {@link MemoryWindows}), as RFC 8166 section 3.4.3 allows.
 */
public enum LocalRights {
    /** The device reads and writes the memory for local work requests (RDMA Read sinks, Send and Write sources). */
    LOCAL_WRITE(Set.of(Access.LOCAL_WRITE)),
    /**
     * {@link #LOCAL_WRITE} and type 2 windows may be bound to it, writable ones too (IB spec C10-73, C10-74): the base
     * of a client's per-call windows. The region's own key reaches nothing remotely.
     */
    WINDOW_BASE(Set.of(Access.LOCAL_WRITE, Access.MW_BIND));

    private final Set<Access> access;

    LocalRights(Set<Access> access) {
        this.access = access;
    }

    /** @return the access flags of the registration ({@code ibv_reg_mr}'s {@code access}) */
    public Set<Access> access() {
        return access;
    }
}
