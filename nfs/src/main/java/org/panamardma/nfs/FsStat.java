package org.panamardma.nfs;

/**
 * {@code FSSTAT3resok} (RFC 1813 section 3.3.18); sizes in bytes, the {@code uint64}s held as their 64 bits.
 *
 * @param attributes the object's attributes, or null
 * @param totalBytes the file system's size
 * @param freeBytes free space
 * @param availableBytes free space the caller may use
 * @param totalFiles file slots (inodes)
 * @param freeFiles free slots
 * @param availableFiles free slots the caller may use
 * @param invarsec seconds the values stay valid
 */
public record FsStat(
        Fattr3 attributes,
        long totalBytes,
        long freeBytes,
        long availableBytes,
        long totalFiles,
        long freeFiles,
        long availableFiles,
        long invarsec) {}
