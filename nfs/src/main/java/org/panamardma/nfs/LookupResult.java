package org.panamardma.nfs;

/**
 * {@code LOOKUP3resok} (RFC 1813 section 3.3.3).
 *
 * @param handle the file handle of the object found
 * @param attributes its attributes, or {@code null} if the server sent none
 * @param directoryAttributes the directory's attributes, or {@code null}
 */
public record LookupResult(FileHandle3 handle, Fattr3 attributes, Fattr3 directoryAttributes) {}
