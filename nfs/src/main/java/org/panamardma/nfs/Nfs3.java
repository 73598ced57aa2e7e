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

    /** Procedure numbers (RFC 1813 section 3). */
    public static final int PROC_NULL = 0;

    public static final int PROC_GETATTR = 1;
    public static final int PROC_SETATTR = 2;
    public static final int PROC_LOOKUP = 3;
    public static final int PROC_ACCESS = 4;
    public static final int PROC_READLINK = 5;
    public static final int PROC_READ = 6;
    public static final int PROC_WRITE = 7;
    public static final int PROC_CREATE = 8;
    public static final int PROC_MKDIR = 9;
    public static final int PROC_SYMLINK = 10;
    public static final int PROC_MKNOD = 11;
    public static final int PROC_REMOVE = 12;
    public static final int PROC_RMDIR = 13;
    public static final int PROC_RENAME = 14;
    public static final int PROC_LINK = 15;
    public static final int PROC_READDIR = 16;
    public static final int PROC_READDIRPLUS = 17;
    public static final int PROC_FSSTAT = 18;
    public static final int PROC_FSINFO = 19;
    public static final int PROC_PATHCONF = 20;
    public static final int PROC_COMMIT = 21;

    /** ACCESS bits (RFC 1813 section 3.3.4). */
    public static final int ACCESS_READ = 0x0001;

    public static final int ACCESS_LOOKUP = 0x0002;
    public static final int ACCESS_MODIFY = 0x0004;
    public static final int ACCESS_EXTEND = 0x0008;
    public static final int ACCESS_DELETE = 0x0010;
    public static final int ACCESS_EXECUTE = 0x0020;

    /** {@code createmode3} of CREATE (RFC 1813 section 3.3.8). */
    public static final int CREATE_UNCHECKED = 0;

    public static final int CREATE_GUARDED = 1;
    public static final int CREATE_EXCLUSIVE = 2;

    /** Encoded size of {@code fattr3} (RFC 1813 section 2.6): 21 XDR words. */
    public static final int FATTR3_SIZE = 84;

    private Nfs3() {}
}
