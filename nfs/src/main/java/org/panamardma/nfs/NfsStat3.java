package org.panamardma.nfs;

/** {@code nfsstat3}: the status of every NFSv3 procedure (RFC 1813 section 2.6). */
public enum NfsStat3 {
    /** Success. */
    NFS3_OK(0),
    /** Not owner: the caller is neither privileged nor the file's owner (EPERM). */
    NFS3ERR_PERM(1),
    /** No such file or directory (ENOENT). */
    NFS3ERR_NOENT(2),
    /** A hard I/O error while the operation ran (EIO). */
    NFS3ERR_IO(5),
    /** No such device or address (ENXIO). */
    NFS3ERR_NXIO(6),
    /** Permission denied: the caller lacks the access the operation needs (EACCES). */
    NFS3ERR_ACCES(13),
    /** The file exists (EEXIST); also a GUARDED or EXCLUSIVE CREATE of an existing name. */
    NFS3ERR_EXIST(17),
    /** A hard link or rename across file systems (EXDEV). */
    NFS3ERR_XDEV(18),
    /** No such device (ENODEV). */
    NFS3ERR_NODEV(19),
    /** A directory operation on something that is not a directory (ENOTDIR). */
    NFS3ERR_NOTDIR(20),
    /** A non-directory operation on a directory (EISDIR). */
    NFS3ERR_ISDIR(21),
    /** An invalid argument or an operation the object does not support, such as READLINK of a regular file (EINVAL). */
    NFS3ERR_INVAL(22),
    /** The file would grow past the server's limit (EFBIG). */
    NFS3ERR_FBIG(27),
    /** No space left on the device (ENOSPC). */
    NFS3ERR_NOSPC(28),
    /** A change to a read-only file system or export (EROFS). */
    NFS3ERR_ROFS(30),
    /** Too many hard links (EMLINK). */
    NFS3ERR_MLINK(31),
    /** A name in the operation is too long (ENAMETOOLONG). */
    NFS3ERR_NAMETOOLONG(63),
    /** RMDIR or RENAME onto a directory that is not empty (ENOTEMPTY). */
    NFS3ERR_NOTEMPTY(66),
    /** The caller's quota is exceeded (EDQUOT). */
    NFS3ERR_DQUOT(69),
    /** The file handle names a file that no longer exists or that the server no longer exports. */
    NFS3ERR_STALE(70),
    /** Too many levels of remote in the path: the server does not re-export another server's file system. */
    NFS3ERR_REMOTE(71),
    /** The file handle failed the server's internal checks (malformed, or not one it issued). */
    NFS3ERR_BADHANDLE(10001),
    /** SETATTR's guard ctime does not match the file's: the attributes changed since the client read them. */
    NFS3ERR_NOT_SYNC(10002),
    /** READDIR or READDIRPLUS with a cookie or cookie verifier that is no longer valid. */
    NFS3ERR_BAD_COOKIE(10003),
    /** The operation is not supported (MKNOD of a type the server does not create, for instance). */
    NFS3ERR_NOTSUPP(10004),
    /** The buffer or request is too small (a READDIR count that cannot hold one entry). */
    NFS3ERR_TOOSMALL(10005),
    /** A server error with no mapping to an NFSv3 status. */
    NFS3ERR_SERVERFAULT(10006),
    /** CREATE or MKNOD of an object type the server does not support. */
    NFS3ERR_BADTYPE(10007),
    /**
     * The server started the operation but cannot complete it in time (data offline): retry later with the same
     * request.
     */
    NFS3ERR_JUKEBOX(10008);

    private final int code;

    NfsStat3(int code) {
        this.code = code;
    }

    /** {@return the value on the wire} */
    public int code() {
        return code;
    }

    /**
     * {@return the status of {@code code}, or {@code null} if RFC 1813 defines none}
     *
     * @param code the {@code nfsstat3} word as received
     */
    public static NfsStat3 of(int code) {
        for (NfsStat3 s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return null;
    }
}
