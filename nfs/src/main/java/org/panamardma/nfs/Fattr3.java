package org.panamardma.nfs;

import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * {@code fattr3}: a file's attributes (RFC 1813 section 2.6). {@code uint64} fields are held as their 64 bits.
 *
 * @param type the file type
 * @param mode the protection mode bits (unsigned 32-bit)
 * @param nlink hard links (unsigned 32-bit)
 * @param uid owner (unsigned 32-bit)
 * @param gid group (unsigned 32-bit)
 * @param size bytes
 * @param used bytes of disk space used
 * @param rdevMajor {@code rdev.specdata1} of a device file
 * @param rdevMinor {@code rdev.specdata2}
 * @param fsid the file system id
 * @param fileid the file id within the file system
 * @param atime last access
 * @param mtime last modification of the data
 * @param ctime last change of the attributes
 */
public record Fattr3(
        FileType3 type,
        long mode,
        long nlink,
        long uid,
        long gid,
        long size,
        long used,
        long rdevMajor,
        long rdevMinor,
        long fsid,
        long fileid,
        NfsTime3 atime,
        NfsTime3 mtime,
        NfsTime3 ctime) {

    /**
     * Encodes this as {@code fattr3}: {@value Nfs3#FATTR3_SIZE} bytes.
     *
     * @param out where to encode
     */
    public void encodeTo(XdrEncoder out) {
        out.putEnum(type.code())
                .putUnsignedInt(mode)
                .putUnsignedInt(nlink)
                .putUnsignedInt(uid)
                .putUnsignedInt(gid)
                .putUnsignedHyper(size)
                .putUnsignedHyper(used)
                .putUnsignedInt(rdevMajor)
                .putUnsignedInt(rdevMinor)
                .putUnsignedHyper(fsid)
                .putUnsignedHyper(fileid);
        atime.encodeTo(out);
        mtime.encodeTo(out);
        ctime.encodeTo(out);
    }

    /**
     * Decodes {@code fattr3}.
     *
     * @param in positioned at the attributes
     * @return the attributes
     * @throws XdrException if truncated or the file type is not one of RFC 1813's
     */
    public static Fattr3 decode(XdrDecoder in) {
        FileType3 type = in.getEnum(FileType3::of, "ftype3");
        return new Fattr3(
                type,
                in.getUnsignedInt("mode"),
                in.getUnsignedInt("nlink"),
                in.getUnsignedInt("uid"),
                in.getUnsignedInt("gid"),
                in.getUnsignedHyper(),
                in.getUnsignedHyper(),
                in.getUnsignedInt("specdata1"),
                in.getUnsignedInt("specdata2"),
                in.getUnsignedHyper(),
                in.getUnsignedHyper(),
                NfsTime3.decode(in),
                NfsTime3.decode(in),
                NfsTime3.decode(in));
    }

    /**
     * Decodes {@code post_op_attr} (RFC 1813 section 2.6): a boolean, then the attributes if TRUE.
     *
     * @param in positioned at the {@code post_op_attr}
     * @return the attributes, or {@code null} if the server sent none
     */
    public static Fattr3 decodePostOp(XdrDecoder in) {
        return in.getBoolean() ? decode(in) : null;
    }

    /**
     * Encodes {@code post_op_attr} from attributes or {@code null}.
     *
     * @param out where to encode
     * @param attributes the attributes, or {@code null} to send none (FALSE)
     */
    public static void encodePostOp(XdrEncoder out, Fattr3 attributes) {
        out.putNullable(attributes, (o, a) -> a.encodeTo(o));
    }
}
