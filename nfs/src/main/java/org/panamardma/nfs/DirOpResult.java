package org.panamardma.nfs;

/**
 * The results of CREATE, MKDIR, SYMLINK and MKNOD (RFC 1813 sections 3.3.8 to 3.3.11): the new file's handle and
 * attributes (both optional in the protocol) and the directory's weak cache consistency data.
 *
 * @param handle the new file's handle, or null if the server gave none
 * @param attributes its attributes, or null
 * @param directory the directory's wcc_data
 */
public record DirOpResult(FileHandle3 handle, Fattr3 attributes, WccData directory) {}
