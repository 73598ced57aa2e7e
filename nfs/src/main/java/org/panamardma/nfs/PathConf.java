package org.panamardma.nfs;

/**
 * {@code PATHCONF3resok} (RFC 1813 section 3.3.20).
 *
 * @param attributes the object's attributes, or null
 * @param linkMax the most hard links to a file
 * @param nameMax the longest name, in bytes
 * @param noTrunc whether longer names are refused (rather than cut)
 * @param chownRestricted whether only root may give a file away
 * @param caseInsensitive whether names are compared without case
 * @param casePreserving whether names keep the case given
 */
public record PathConf(
        Fattr3 attributes,
        long linkMax,
        long nameMax,
        boolean noTrunc,
        boolean chownRestricted,
        boolean caseInsensitive,
        boolean casePreserving) {}
