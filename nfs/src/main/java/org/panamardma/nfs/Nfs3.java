package org.panamardma.nfs;

/** NFS version 3 protocol numbers and limits (RFC 1813 sections 2.1, 2.4 and 3). */
public final class Nfs3 {
    /** The NFS program number (RFC 1813 section 1.3). */
    public static final int PROGRAM = 100003;
    /** The protocol version of RFC 1813. */
    public static final int VERSION = 3;
    /** The port NFS listens on over TCP (RFC 1813 section 1.3, by convention). */
    public static final int TCP_PORT = 2049;
    /** The port of NFS over RPC-over-RDMA (RFC 8267 section 3, "nfsrdma"). */
    public static final int RDMA_PORT = 20049;

    /** NFS3_FHSIZE: the largest file handle (RFC 1813 section 2.4). */
    public static final int FHSIZE = 64;
    /** NFS3_COOKIEVERFSIZE (RFC 1813 section 2.4). */
    public static final int COOKIEVERFSIZE = 8;
    /** NFS3_WRITEVERFSIZE (RFC 1813 section 2.4). */
    public static final int WRITEVERFSIZE = 8;

    /** NULL (RFC 1813 section 3.3.0): does nothing; answers to show the server is there. */
    public static final int PROC_NULL = 0;
    /** GETATTR (RFC 1813 section 3.3.1): a file's attributes. */
    public static final int PROC_GETATTR = 1;
    /** SETATTR (RFC 1813 section 3.3.2): changes attributes, optionally guarded by the ctime the client saw. */
    public static final int PROC_SETATTR = 2;
    /** LOOKUP (RFC 1813 section 3.3.3): a name in a directory to its file handle. */
    public static final int PROC_LOOKUP = 3;
    /** ACCESS (RFC 1813 section 3.3.4): which of the {@code ACCESS_*} rights the caller has on a file. */
    public static final int PROC_ACCESS = 4;
    /** READLINK (RFC 1813 section 3.3.5): a symbolic link's target. */
    public static final int PROC_READLINK = 5;
    /** READ (RFC 1813 section 3.3.6): bytes of a file; the data is DDP-eligible over RDMA (RFC 8267 section 4.1). */
    public static final int PROC_READ = 6;
    /** WRITE (RFC 1813 section 3.3.7): bytes into a file, at a stability the caller asks; the data is DDP-eligible. */
    public static final int PROC_WRITE = 7;
    /** CREATE (RFC 1813 section 3.3.8): a regular file, in one of the {@code CREATE_*} modes. */
    public static final int PROC_CREATE = 8;
    /** MKDIR (RFC 1813 section 3.3.9): a directory. */
    public static final int PROC_MKDIR = 9;
    /** SYMLINK (RFC 1813 section 3.3.10): a symbolic link. */
    public static final int PROC_SYMLINK = 10;
    /** MKNOD (RFC 1813 section 3.3.11): a device, socket or FIFO. */
    public static final int PROC_MKNOD = 11;
    /** REMOVE (RFC 1813 section 3.3.12): removes a name that is not a directory. */
    public static final int PROC_REMOVE = 12;
    /** RMDIR (RFC 1813 section 3.3.13): removes an empty directory. */
    public static final int PROC_RMDIR = 13;
    /** RENAME (RFC 1813 section 3.3.14): moves a name, within one file system. */
    public static final int PROC_RENAME = 14;
    /** LINK (RFC 1813 section 3.3.15): a hard link. */
    public static final int PROC_LINK = 15;
    /** READDIR (RFC 1813 section 3.3.16): names and file ids of a directory, a cookie at a time. */
    public static final int PROC_READDIR = 16;
    /** READDIRPLUS (RFC 1813 section 3.3.17): READDIR with each entry's attributes and handle. */
    public static final int PROC_READDIRPLUS = 17;
    /** FSSTAT (RFC 1813 section 3.3.18): a file system's space and file counts. */
    public static final int PROC_FSSTAT = 18;
    /** FSINFO (RFC 1813 section 3.3.19): a file system's static limits and preferred transfer sizes. */
    public static final int PROC_FSINFO = 19;
    /** PATHCONF (RFC 1813 section 3.3.20): POSIX pathconf values for a file. */
    public static final int PROC_PATHCONF = 20;
    /** COMMIT (RFC 1813 section 3.3.21): makes UNSTABLE writes of a range durable. */
    public static final int PROC_COMMIT = 21;

    /** ACCESS3_READ (RFC 1813 section 3.3.4): read data or list a directory. */
    public static final int ACCESS_READ = 0x0001;
    /** ACCESS3_LOOKUP: look up names in a directory. */
    public static final int ACCESS_LOOKUP = 0x0002;
    /** ACCESS3_MODIFY: rewrite existing data or change a directory's entries. */
    public static final int ACCESS_MODIFY = 0x0004;
    /** ACCESS3_EXTEND: write past the end of a file or add directory entries. */
    public static final int ACCESS_EXTEND = 0x0008;
    /** ACCESS3_DELETE: delete directory entries. */
    public static final int ACCESS_DELETE = 0x0010;
    /** ACCESS3_EXECUTE: run a file (no meaning for a directory). */
    public static final int ACCESS_EXECUTE = 0x0020;

    /** UNCHECKED (RFC 1813 section 3.3.8): creates the file, or truncates to the given attributes one that exists. */
    public static final int CREATE_UNCHECKED = 0;
    /** GUARDED: creates the file, failing with NFS3ERR_EXIST if the name exists. */
    public static final int CREATE_GUARDED = 1;
    /** EXCLUSIVE: creates the file once per {@code createverf3}, so that a retransmitted CREATE succeeds. */
    public static final int CREATE_EXCLUSIVE = 2;

    /** Encoded size of {@code fattr3} (RFC 1813 section 2.6): 21 XDR words. */
    public static final int FATTR3_SIZE = 84;

    private Nfs3() {}
}
