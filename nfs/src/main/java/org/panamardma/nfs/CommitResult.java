package org.panamardma.nfs;

/**
 * {@code COMMIT3resok} (RFC 1813 section 3.3.21).
 *
 * @param wcc the file's attributes before and after
 * @param verifier the server's write verifier, to compare with those of the WRITEs it commits
 */
public record CommitResult(WccData wcc, long verifier) {}
