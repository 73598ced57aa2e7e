package org.panamardma.nfs;

import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;

/**
 * {@code FSINFO3resok}: a file system's static limits and preferences (RFC 1813 section 3.3.19). The {@code uint32}
 * fields are held unsigned in {@code long}s, {@code maxfilesize} ({@code size3}, uint64) as its 64 bits.
 *
 * <p>The limits matter: a READ must not ask for more than {@code rtmax} and a WRITE must not carry more than
 * {@code wtmax}. Over RPC-over-RDMA Linux's knfsd does not refuse a WRITE whose Read chunk exceeds its maximum
 * payload: its 6.12 kernel oopsed on one in this project's testbed. {@link Nfs3Client} therefore keeps to these.
 *
 * @param attributes the file system root's attributes ({@code post_op_attr}), or {@code null}
 * @param rtmax the largest READ request the server supports, in bytes
 * @param rtpref the preferred READ size
 * @param rtmult the suggested multiple for READ sizes
 * @param wtmax the largest WRITE request the server supports, in bytes
 * @param wtpref the preferred WRITE size
 * @param wtmult the suggested multiple for WRITE sizes
 * @param dtpref the preferred READDIR size
 * @param maxfilesize the largest file size (unsigned 64-bit)
 * @param timeDelta the server's time granularity for SETATTR times
 * @param properties the {@code FSF3_*} bits
 */
public record FsInfo(
        Fattr3 attributes,
        long rtmax,
        long rtpref,
        long rtmult,
        long wtmax,
        long wtpref,
        long wtmult,
        long dtpref,
        long maxfilesize,
        NfsTime3 timeDelta,
        int properties) {
    /** FSF3_LINK: the file system supports hard links. */
    public static final int FSF3_LINK = 0x0001;
    /** FSF3_SYMLINK: the file system supports symbolic links. */
    public static final int FSF3_SYMLINK = 0x0002;
    /** FSF3_HOMOGENEOUS: PATHCONF is the same for every file and directory of the file system. */
    public static final int FSF3_HOMOGENEOUS = 0x0008;
    /** FSF3_CANSETTIME: SETATTR can set a file's times. */
    public static final int FSF3_CANSETTIME = 0x0010;

    /**
     * Decodes {@code FSINFO3resok} after the status.
     *
     * @param in positioned after the {@code nfsstat3} NFS3_OK
     * @return the limits and properties
     */
    public static FsInfo decode(XdrDecoder in) {
        return new FsInfo(
                Fattr3.decodePostOp(in),
                in.getUnsignedInt("rtmax"),
                in.getUnsignedInt("rtpref"),
                in.getUnsignedInt("rtmult"),
                in.getUnsignedInt("wtmax"),
                in.getUnsignedInt("wtpref"),
                in.getUnsignedInt("wtmult"),
                in.getUnsignedInt("dtpref"),
                in.getUnsignedHyper(),
                NfsTime3.decode(in),
                in.getInt("properties"));
    }

    /**
     * Encodes {@code FSINFO3resok} (without the status): for stand-in servers and tests.
     *
     * @param out where to encode
     */
    public void encodeTo(XdrEncoder out) {
        Fattr3.encodePostOp(out, attributes);
        out.putUnsignedInt(rtmax)
                .putUnsignedInt(rtpref)
                .putUnsignedInt(rtmult)
                .putUnsignedInt(wtmax)
                .putUnsignedInt(wtpref)
                .putUnsignedInt(wtmult)
                .putUnsignedInt(dtpref)
                .putUnsignedHyper(maxfilesize);
        timeDelta.encodeTo(out);
        out.putInt(properties);
    }

    /**
     * {@return whether every bit of {@code flag} (an {@code FSF3_*} constant) is set}
     *
     * @param flag one or more {@code FSF3_*} bits
     */
    public boolean has(int flag) {
        return (properties & flag) == flag;
    }

    /** {@return the most bytes one READ may ask for: {@code rtmax}, at most 2^31-1} */
    public int maxReadSize() {
        return (int) Math.min(rtmax, Integer.MAX_VALUE);
    }

    /** {@return the most bytes one WRITE may carry: {@code wtmax}, at most 2^31-1} */
    public int maxWriteSize() {
        return (int) Math.min(wtmax, Integer.MAX_VALUE);
    }

    /** {@return the READ size to use for bulk reads: {@code rtpref}, or {@code rtmax} if that is 0 or smaller} */
    public int preferredReadSize() {
        return rtpref == 0 ? maxReadSize() : (int) Math.min(rtpref, maxReadSize());
    }

    /** {@return the WRITE size to use for bulk writes: {@code wtpref}, or {@code wtmax} if that is 0 or smaller} */
    public int preferredWriteSize() {
        return wtpref == 0 ? maxWriteSize() : (int) Math.min(wtpref, maxWriteSize());
    }
}
