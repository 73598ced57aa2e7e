package org.panamardma.nfs;

/**
 * {@code WRITE3resok} (RFC 1813 section 3.3.7).
 *
 * @param wcc the file's attributes before and after
 * @param count the bytes written
 * @param committed how durably the server committed them
 * @param verifier the server's write verifier ({@code writeverf3}, 8 bytes as a big-endian long): a change between a
 *                 WRITE and its COMMIT means the server restarted and unstable data may be lost
 */
public record WriteResult(WccData wcc, int count, StableHow committed, long verifier) {}
