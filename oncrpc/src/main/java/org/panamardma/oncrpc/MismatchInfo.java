package org.panamardma.oncrpc;

/**
 * The lowest and highest versions supported, sent with PROG_MISMATCH and RPC_MISMATCH (RFC 5531 section 9).
 * Both are XDR {@code unsigned int}s held as their 32 bits.
 *
 * @param low the lowest version supported
 * @param high the highest version supported
 */
public record MismatchInfo(int low, int high) {}
