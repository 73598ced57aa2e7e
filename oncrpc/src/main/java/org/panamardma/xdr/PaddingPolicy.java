package org.panamardma.xdr;

/**
 * What a decoder does with the padding bytes after variable-length data.
 *
 * <p>RFC 4506 section 4.9 says the padding bytes are zero. {@link #REQUIRE_ZERO}, the default, enforces that:
 * non-zero padding almost always means the decoder has lost its framing (a wrong length, a wrong union arm), and
 * failing there names the fault where it happened instead of several items later. {@link #TOLERATE} skips the
 * bytes unread, as the Linux kernel's XDR decoders do, for peers known to leave garbage in their padding.
 */
public enum PaddingPolicy {
    /** Non-zero padding is an {@link XdrException} with {@link XdrException.Reason#NONZERO_PADDING}. */
    REQUIRE_ZERO,
    /** Padding is skipped without being read. */
    TOLERATE
}
