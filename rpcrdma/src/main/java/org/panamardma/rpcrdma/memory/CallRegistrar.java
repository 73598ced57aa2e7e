package org.panamardma.rpcrdma.memory;

import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.RdmaException;

/**
 * A client's registrar: {@link LocalRegistrar}'s local registrations, and one more kind, a registration of exactly one
 * chunk's segment with that chunk's one remote right, for one call ({@link #exposeForCall}). It hands back an
 * {@link Exposure}, which the call revokes before it completes: the only way a remote key to registered memory is
 * made in this module.
 */
public interface CallRegistrar extends LocalRegistrar {
    /**
     * Registers exactly {@code segment} with {@code access}'s one remote right (and local write for a sink, C10-74).
     *
     * @throws RdmaException if the device refused
     */
    Registration registerForCall(MemorySegment segment, ChunkAccess access) throws RdmaException;

    /**
     * {@link #registerForCall} as an {@link Exposure} that deregistering revokes.
     *
     * @param deregistered runs after the deregistration succeeded (to count it)
     */
    default Exposure exposeForCall(MemorySegment segment, ChunkAccess access, Runnable deregistered)
            throws RdmaException {
        return Exposure.registered(registerForCall(segment, access), deregistered);
    }

    /**
     * @param pd the protection domain to register in
     * @return local registrations and per-call exposures in {@code pd}
     */
    static CallRegistrar of(ProtectionDomain pd) {
        return new CallRegistrar() {
            @Override
            public Registration register(MemorySegment segment, LocalRights rights) throws RdmaException {
                return new Registration.VerbsRegistration(pd.register(segment, rights.access()));
            }

            @Override
            public Registration registerForCall(MemorySegment segment, ChunkAccess access) throws RdmaException {
                return new Registration.VerbsRegistration(pd.register(segment, access.registrationRights()));
            }
        };
    }
}
