package org.panamardma.rpcrdma.memory;

import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.RdmaException;

/**
 * Registers memory with local rights only ({@link LocalRights}): all a server's memory needs (the server exposes
 * nothing to its clients: RFC 8166 section 3.4.3 gives handles to the requester's memory only), and the client's pool
 * buffers and cached registrations that windows are bound to. What {@link #of} returns cannot make a remote key: a
 * server built on it has no way to expose its memory.
 */
public interface LocalRegistrar {
    /**
     * Registers {@code segment} in place ({@code ibv_reg_mr}); the caller keeps the memory alive until the
     * registration is deregistered.
     *
     * @throws RdmaException if the device refused (RLIMIT_MEMLOCK, for one)
     */
    Registration register(MemorySegment segment, LocalRights rights) throws RdmaException;

    /**
     * @param pd the protection domain to register in
     * @return registrations in {@code pd} with local rights, and nothing else
     */
    static LocalRegistrar of(ProtectionDomain pd) {
        return (segment, rights) -> new Registration.VerbsRegistration(pd.register(segment, rights.access()));
    }
}
