package org.panamardma.nfs.server;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;
import org.panamardma.nfs.Fattr3;
import org.panamardma.nfs.FileType3;
import org.panamardma.nfs.NfsTime3;
import org.panamardma.nfs.WccData;

/**
 * A file's status as {@code statx(2)} reports it, the fields the server uses.
 *
 * @param mode type and permission bits ({@code stx_mode})
 * @param nlink links
 * @param uid owner
 * @param gid group
 * @param size bytes
 * @param blocks 512-byte blocks allocated
 * @param ino inode number
 * @param devMajor the file system's device, major
 * @param devMinor the file system's device, minor
 * @param rdevMajor a device file's device, major
 * @param rdevMinor a device file's device, minor
 * @param atimeSec last access, seconds
 * @param atimeNsec last access, nanoseconds
 * @param mtimeSec last data change, seconds
 * @param mtimeNsec last data change, nanoseconds
 * @param ctimeSec last status change, seconds
 * @param ctimeNsec last status change, nanoseconds
 * @param btimeSec birth, seconds; valid only if {@code hasBtime}
 * @param btimeNsec birth, nanoseconds
 * @param hasBtime whether the file system reported a birth time
 * @param inodeVersion the generation the file system keeps in the inode ({@code FS_IOC_GETVERSION}), where the
 *                     export has no birth times ({@link ExportFs} fills it in); valid only if {@code hasInodeVersion}
 * @param hasInodeVersion whether {@code inodeVersion} was filled in
 * @param attributes the file's attribute flags the file system reports ({@code stx_attributes}, masked by
 *                   {@code stx_attributes_mask}): {@link Posix#STATX_ATTR_IMMUTABLE}, {@link Posix#STATX_ATTR_APPEND}, ...
 */
record Stat(
        int mode,
        long nlink,
        int uid,
        int gid,
        long size,
        long blocks,
        long ino,
        int devMajor,
        int devMinor,
        int rdevMajor,
        int rdevMinor,
        long atimeSec,
        int atimeNsec,
        long mtimeSec,
        int mtimeNsec,
        long ctimeSec,
        int ctimeNsec,
        long btimeSec,
        int btimeNsec,
        boolean hasBtime,
        int inodeVersion,
        boolean hasInodeVersion,
        long attributes) {

    /** Reads a filled {@code struct statx} (linux/stat.h). */
    static Stat of(MemorySegment b) {
        int mask = b.get(JAVA_INT, 0);
        return new Stat(
                Short.toUnsignedInt(b.get(JAVA_SHORT, 28)),
                Integer.toUnsignedLong(b.get(JAVA_INT, 16)),
                b.get(JAVA_INT, 20),
                b.get(JAVA_INT, 24),
                b.get(JAVA_LONG, 40),
                b.get(JAVA_LONG, 48),
                b.get(JAVA_LONG, 32),
                b.get(JAVA_INT, 136),
                b.get(JAVA_INT, 140),
                b.get(JAVA_INT, 128),
                b.get(JAVA_INT, 132),
                b.get(JAVA_LONG, 64),
                b.get(JAVA_INT, 72),
                b.get(JAVA_LONG, 112),
                b.get(JAVA_INT, 120),
                b.get(JAVA_LONG, 96),
                b.get(JAVA_INT, 104),
                b.get(JAVA_LONG, 80),
                b.get(JAVA_INT, 88),
                (mask & Posix.STATX_BTIME) != 0,
                0,
                false,
                b.get(JAVA_LONG, 8) & b.get(JAVA_LONG, 56));
    }

    /** This status with the inode's own generation, for an export without birth times. */
    Stat withInodeVersion(int version) {
        return new Stat(
                mode,
                nlink,
                uid,
                gid,
                size,
                blocks,
                ino,
                devMajor,
                devMinor,
                rdevMajor,
                rdevMinor,
                atimeSec,
                atimeNsec,
                mtimeSec,
                mtimeNsec,
                ctimeSec,
                ctimeNsec,
                btimeSec,
                btimeNsec,
                hasBtime,
                version,
                true,
                attributes);
    }

    int type() {
        return mode & Posix.S_IFMT;
    }

    boolean isDirectory() {
        return type() == Posix.S_IFDIR;
    }

    boolean isRegular() {
        return type() == Posix.S_IFREG;
    }

    boolean isSymlink() {
        return type() == Posix.S_IFLNK;
    }

    /** {@return the permission bits with set-id and sticky bits (07777)} */
    int permissions() {
        return mode & 07777;
    }

    /**
     * Whether the file system refuses writes to the file whatever the permissions: immutable, or append-only (an
     * open for writing without O_APPEND is refused, and NFS WRITEs are at offsets).
     */
    boolean writeProtected() {
        return (attributes & (Posix.STATX_ATTR_IMMUTABLE | Posix.STATX_ATTR_APPEND)) != 0;
    }

    boolean sameDevice(Stat other) {
        return devMajor == other.devMajor && devMinor == other.devMinor;
    }

    /**
     * A generation number telling apart two files that had the same inode number at different times: the birth
     * time, where the file system keeps one (ext4, xfs, btrfs, tmpfs); else the generation the export filled in
     * ({@link #withInodeVersion}); 0 only for a status the export has not identified (never one it makes a handle
     * of or compares with one: it refuses a file system offering neither).
     */
    int generation() {
        long x;
        if (hasBtime) {
            x = btimeSec * 1_000_000_007L + btimeNsec;
        } else if (hasInodeVersion) {
            x = 0x6765_6e00_0000_0000L ^ Integer.toUnsignedLong(inodeVersion);
        } else {
            return 0;
        }
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        x ^= x >>> 33;
        return (int) x;
    }

    FileType3 fileType() {
        return switch (type()) {
            case Posix.S_IFDIR -> FileType3.NF3DIR;
            case Posix.S_IFLNK -> FileType3.NF3LNK;
            case Posix.S_IFBLK -> FileType3.NF3BLK;
            case Posix.S_IFCHR -> FileType3.NF3CHR;
            case Posix.S_IFSOCK -> FileType3.NF3SOCK;
            case Posix.S_IFIFO -> FileType3.NF3FIFO;
            default -> FileType3.NF3REG;
        };
    }

    /** {@code fattr3} (RFC 1813 section 2.6) with the export's {@code fsid}. */
    Fattr3 toFattr3(long fsid) {
        return new Fattr3(
                fileType(),
                permissions(),
                nlink,
                Integer.toUnsignedLong(uid),
                Integer.toUnsignedLong(gid),
                size,
                blocks * 512,
                Integer.toUnsignedLong(rdevMajor),
                Integer.toUnsignedLong(rdevMinor),
                fsid,
                ino,
                time(atimeSec, atimeNsec),
                time(mtimeSec, mtimeNsec),
                time(ctimeSec, ctimeNsec));
    }

    /** {@code wcc_attr}: size, mtime, ctime before an operation. */
    WccData.WccAttr toWccAttr() {
        return new WccData.WccAttr(size, time(mtimeSec, mtimeNsec), time(ctimeSec, ctimeNsec));
    }

    /** {@code nfstime3} holds unsigned 32-bit seconds: times before 1970 or after 2106 are clamped. */
    static NfsTime3 time(long seconds, int nanoseconds) {
        return new NfsTime3(Math.max(0, Math.min(seconds, 0xffffffffL)), Integer.toUnsignedLong(nanoseconds));
    }
}
