package org.panamardma.nfs;

/**
 * RENAME's results (RFC 1813 section 3.3.14).
 *
 * @param from the source directory's wcc_data
 * @param to the target directory's wcc_data
 */
public record RenameResult(WccData from, WccData to) {}
