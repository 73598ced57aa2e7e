package org.panamardma.nfs.server;

import java.io.IOException;
import org.panamardma.nfs.NfsStat3;

/** A failed system call: its errno, and the {@code nfsstat3} a client is told (RFC 1813 section 2.6). */
final class PosixException extends IOException {
    private static final long serialVersionUID = 1L;

    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int EIO = 5;
    static final int ENXIO = 6;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int EACCES = 13;
    static final int EBUSY = 16;
    static final int EEXIST = 17;
    static final int EXDEV = 18;
    static final int ENODEV = 19;
    static final int ENOTDIR = 20;
    static final int EISDIR = 21;
    static final int EINVAL = 22;
    static final int ENFILE = 23;
    static final int EMFILE = 24;
    static final int ETXTBSY = 26;
    static final int EFBIG = 27;
    static final int ENOSPC = 28;
    static final int EROFS = 30;
    static final int EMLINK = 31;
    static final int ENAMETOOLONG = 36;
    static final int ENOTEMPTY = 39;
    static final int ELOOP = 40;
    static final int EOVERFLOW = 75;
    static final int EOPNOTSUPP = 95;
    static final int ESTALE = 116;
    static final int EDQUOT = 122;

    private final int errno;

    PosixException(int errno, String op, String what) {
        super(op + "(" + what + "): " + name(errno));
        this.errno = errno;
    }

    int errno() {
        return errno;
    }

    /** The NFS status for this errno: the table knfsd uses ({@code nfserrno} in fs/nfsd/nfsproc.c). */
    NfsStat3 status() {
        return status(errno);
    }

    static NfsStat3 status(int errno) {
        return switch (errno) {
            case EPERM -> NfsStat3.NFS3ERR_PERM;
            case ENOENT -> NfsStat3.NFS3ERR_NOENT;
            case EIO -> NfsStat3.NFS3ERR_IO;
            case ENXIO -> NfsStat3.NFS3ERR_NXIO;
            case EACCES -> NfsStat3.NFS3ERR_ACCES;
            case EEXIST -> NfsStat3.NFS3ERR_EXIST;
            case EXDEV -> NfsStat3.NFS3ERR_XDEV;
            case ENODEV -> NfsStat3.NFS3ERR_NODEV;
            case ENOTDIR -> NfsStat3.NFS3ERR_NOTDIR;
            case EISDIR -> NfsStat3.NFS3ERR_ISDIR;
            case EINVAL -> NfsStat3.NFS3ERR_INVAL;
            case EFBIG -> NfsStat3.NFS3ERR_FBIG;
            case ENOSPC -> NfsStat3.NFS3ERR_NOSPC;
            case EROFS -> NfsStat3.NFS3ERR_ROFS;
            case EMLINK -> NfsStat3.NFS3ERR_MLINK;
            case ENAMETOOLONG -> NfsStat3.NFS3ERR_NAMETOOLONG;
            case ENOTEMPTY -> NfsStat3.NFS3ERR_NOTEMPTY;
            case EDQUOT -> NfsStat3.NFS3ERR_DQUOT;
            case ESTALE -> NfsStat3.NFS3ERR_STALE;
            case EOPNOTSUPP -> NfsStat3.NFS3ERR_NOTSUPP;
            case ETXTBSY, EBUSY -> NfsStat3.NFS3ERR_ACCES;
            case EAGAIN, ENOMEM, ENFILE, EMFILE -> NfsStat3.NFS3ERR_JUKEBOX;
            case EOVERFLOW -> NfsStat3.NFS3ERR_FBIG;
            default -> NfsStat3.NFS3ERR_IO;
        };
    }

    static String name(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM";
            case ENOENT -> "ENOENT";
            case EINTR -> "EINTR";
            case EIO -> "EIO";
            case ENXIO -> "ENXIO";
            case EBADF -> "EBADF";
            case EAGAIN -> "EAGAIN";
            case ENOMEM -> "ENOMEM";
            case EACCES -> "EACCES";
            case EBUSY -> "EBUSY";
            case EEXIST -> "EEXIST";
            case EXDEV -> "EXDEV";
            case ENODEV -> "ENODEV";
            case ENOTDIR -> "ENOTDIR";
            case EISDIR -> "EISDIR";
            case EINVAL -> "EINVAL";
            case ENFILE -> "ENFILE";
            case EMFILE -> "EMFILE";
            case ETXTBSY -> "ETXTBSY";
            case EFBIG -> "EFBIG";
            case ENOSPC -> "ENOSPC";
            case EROFS -> "EROFS";
            case EMLINK -> "EMLINK";
            case ENAMETOOLONG -> "ENAMETOOLONG";
            case ENOTEMPTY -> "ENOTEMPTY";
            case ELOOP -> "ELOOP";
            case EOVERFLOW -> "EOVERFLOW";
            case EOPNOTSUPP -> "EOPNOTSUPP";
            case ESTALE -> "ESTALE";
            case EDQUOT -> "EDQUOT";
            default -> "errno " + errno;
        };
    }
}
