package org.panamardma.nfs;

/**
 * One directory entry of READDIR ({@code entry3}) or READDIRPLUS ({@code entryplus3}), RFC 1813 sections 3.3.16
 * and 3.3.17.
 *
 * @param fileid the entry's file id
 * @param name its name
 * @param cookie where to resume reading the directory after this entry
 * @param attributes READDIRPLUS only: its attributes, or {@code null}
 * @param handle READDIRPLUS only: its file handle, or {@code null}
 */
public record DirEntry3(long fileid, String name, long cookie, Fattr3 attributes, FileHandle3 handle) {}
