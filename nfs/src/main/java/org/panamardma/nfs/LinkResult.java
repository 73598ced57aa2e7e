package org.panamardma.nfs;

/**
 * LINK's results (RFC 1813 section 3.3.15).
 *
 * @param file the linked file's attributes after the link, or null
 * @param directory the directory's wcc_data
 */
public record LinkResult(Fattr3 file, WccData directory) {}
