package org.panamardma.verbs;

import java.util.Set;

/**
 * The tests' buffers: everything a peer could want of them. The library has no such default on purpose (a
 * registration should grant a peer only what it needs); tests exercise every operation on the same buffers.
 */
public final class TestAccess {
    private TestAccess() {}

    /** Local write, remote read, remote write, remote atomic. */
    public static final Set<Access> ALL_REMOTE =
            Set.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
}
