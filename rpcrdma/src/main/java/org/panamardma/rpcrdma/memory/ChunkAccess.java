package org.panamardma.rpcrdma.memory;

import java.util.Set;
import org.panamardma.verbs.Access;

/**
 * What a chunk lets the server do with its segment during one call: one remote right, never both (RFC 8166 section
 * 3.4). The only remote rights this module grants ({@link CallRegistrar}, {@link MemoryWindows}).
 */
public enum ChunkAccess {
    /** A Read chunk: the server reads it (RFC 8166 section 3.4.5). */
    SOURCE(Set.of(Access.REMOTE_READ), Set.of(Access.REMOTE_READ)),
    /** A Write or Reply chunk: the server writes it (RFC 8166 section 3.4.6). */
    SINK(Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE), Set.of(Access.REMOTE_WRITE));

    private final Set<Access> registrationRights;
    private final Set<Access> remoteRight;

    ChunkAccess(Set<Access> registrationRights, Set<Access> remoteRight) {
        this.registrationRights = registrationRights;
        this.remoteRight = remoteRight;
    }

    /** @return the rights of a registration made for the chunk alone (remote write needs local write, C10-74) */
    public Set<Access> registrationRights() {
        return registrationRights;
    }

    /** @return the right of a window bound for the chunk */
    public Set<Access> remoteRight() {
        return remoteRight;
    }
}
