package org.panamardma.nfs;

import java.util.List;

/**
 * {@code READDIR3resok} or {@code READDIRPLUS3resok} (RFC 1813 sections 3.3.16, 3.3.17): one batch of entries.
 *
 * @param directoryAttributes the directory's attributes, or {@code null}
 * @param cookieVerifier the cookie verifier ({@code cookieverf3} as a big-endian long) to send with the next batch
 * @param entries the entries of this batch
 * @param eof whether this batch ends the directory
 */
public record DirList3(Fattr3 directoryAttributes, long cookieVerifier, List<DirEntry3> entries, boolean eof) {
    /** Copies {@code entries}, so that the batch is immutable. */
    public DirList3 {
        entries = List.copyOf(entries);
    }
}
