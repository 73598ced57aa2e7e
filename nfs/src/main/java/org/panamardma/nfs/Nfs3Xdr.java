package org.panamardma.nfs;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.panamardma.nfs.rpc.ReplyPlacement;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.xdr.Xdr;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrException;

/**
 * The arguments and results of the NFSv3 procedures this client uses, as XDR (RFC 1813 section 3): argument
 * encoders ({@link XdrEncodable}, repeatable) and result readers ({@link ReplyReader}).
 *
 * <p>Direct data placement (RFC 8267 section 4.1: in NFSv3 only the opaque data of READ results and WRITE
 * arguments are DDP-eligible): {@link #write} writes its data with {@code putEligibleOpaque}, and {@link #readResults}
 * reads its data through the {@link ReplyPlacement}, with the caller's buffer as the placement target.
 */
public final class Nfs3Xdr {
    /** {@code filename3} is {@code string<>}; Linux and most servers cap names at 255 bytes (NAME_MAX). */
    public static final int MAX_NAME = 255;
    /** Encoded size of {@code post_op_attr} holding attributes. */
    static final int POST_OP_ATTR_MAX = Xdr.INT_SIZE + Nfs3.FATTR3_SIZE;

    private Nfs3Xdr() {
    }

    // ---- arguments ----------------------------------------------------------------------------------------------

    /** {@code GETATTR3args}: the object's handle (RFC 1813 section 3.3.1). */
    public static XdrEncodable getattr(FileHandle3 object) {
        return object::encodeTo;
    }

    /** {@code LOOKUP3args}: {@code diropargs3}, the directory's handle and a name (RFC 1813 section 3.3.3). */
    public static XdrEncodable lookup(FileHandle3 directory, String name) {
        return out -> {
            directory.encodeTo(out);
            out.putString(name, MAX_NAME);
        };
    }

    /** {@code READ3args} (RFC 1813 section 3.3.6). */
    public static XdrEncodable read(FileHandle3 file, long offset, int count) {
        requireCount(count);
        return out -> {
            file.encodeTo(out);
            out.putUnsignedHyper(offset).putUnsignedInt(count);
        };
    }

    /**
     * {@code WRITE3args} (RFC 1813 section 3.3.7); {@code count} is the data's length and the data is DDP-eligible.
     */
    public static XdrEncodable write(FileHandle3 file, long offset, StableHow stable, MemorySegment data) {
        if (data.byteSize() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("WRITE of " + data.byteSize() + " bytes: at most 2^31-1 per call");
        }
        return out -> {
            file.encodeTo(out);
            out.putUnsignedHyper(offset).putUnsignedInt(data.byteSize()).putEnum(stable.code());
            out.putEligibleOpaque(data, Integer.MAX_VALUE);
        };
    }

    /** {@code FSINFO3args}: a handle in the file system, normally its root (RFC 1813 section 3.3.19). */
    public static XdrEncodable fsinfo(FileHandle3 fsroot) {
        return fsroot::encodeTo;
    }

    /** {@code COMMIT3args} (RFC 1813 section 3.3.21); count 0 commits from offset to the end of the file. */
    public static XdrEncodable commit(FileHandle3 file, long offset, int count) {
        requireCount(count);
        return out -> {
            file.encodeTo(out);
            out.putUnsignedHyper(offset).putUnsignedInt(count);
        };
    }

    /**
     * {@code READDIR3args} (RFC 1813 section 3.3.16).
     *
     * @param count the largest {@code READDIR3resok} the server may return, XDR overhead included
     */
    public static XdrEncodable readdir(FileHandle3 directory, long cookie, long cookieVerifier, int count) {
        requireCount(count);
        return out -> {
            directory.encodeTo(out);
            out.putUnsignedHyper(cookie).putHyper(cookieVerifier).putUnsignedInt(count);
        };
    }

    /**
     * {@code READDIRPLUS3args} (RFC 1813 section 3.3.17).
     *
     * @param dirCount the most bytes of directory information (file ids, names and cookies) to return
     * @param maxCount the largest {@code READDIRPLUS3resok}, XDR overhead included
     */
    public static XdrEncodable readdirplus(FileHandle3 directory, long cookie, long cookieVerifier, int dirCount,
                                           int maxCount) {
        requireCount(dirCount);
        requireCount(maxCount);
        return out -> {
            directory.encodeTo(out);
            out.putUnsignedHyper(cookie).putHyper(cookieVerifier).putUnsignedInt(dirCount).putUnsignedInt(maxCount);
        };
    }

    private static void requireCount(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("negative count " + count);
        }
    }

    // ---- results ------------------------------------------------------------------------------------------------

    private static NfsStat3 status(XdrDecoder in) {
        return in.getEnum(NfsStat3::of, "nfsstat3");
    }

    /** {@code GETATTR3res}: on NFS3_OK the attributes, on failure nothing (RFC 1813 section 3.3.1). */
    public static Nfs3Result<Fattr3> getattrResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        return new Nfs3Result<>(status, status == NfsStat3.NFS3_OK ? Fattr3.decode(in) : null);
    }

    /** {@code LOOKUP3res} (RFC 1813 section 3.3.3); on failure only the directory's {@code post_op_attr}. */
    public static Nfs3Result<LookupResult> lookupResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        if (status != NfsStat3.NFS3_OK) {
            Fattr3.decodePostOp(in);
            return new Nfs3Result<>(status, null);
        }
        FileHandle3 handle = FileHandle3.decode(in);
        Fattr3 attributes = Fattr3.decodePostOp(in);
        return new Nfs3Result<>(status, new LookupResult(handle, attributes, Fattr3.decodePostOp(in)));
    }

    /**
     * {@code READ3res} (RFC 1813 section 3.3.6), reading the data into {@code target}: its first {@code count}
     * bytes. The data is read through the {@link ReplyPlacement} with {@code target} as the placement target, so
     * an RDMA transport can have the server write it there directly; an inline reply is copied into it.
     *
     * @param target at least the count requested
     */
    public static ReplyReader<Nfs3Result<ReadResult>> readResults(MemorySegment target) {
        return new ReplyReader<>() {
            @Override
            public Nfs3Result<ReadResult> read(XdrDecoder in, ReplyPlacement placement) {
                NfsStat3 status = status(in);
                Fattr3 attributes = Fattr3.decodePostOp(in);
                if (status != NfsStat3.NFS3_OK) {
                    return new Nfs3Result<>(status, null);
                }
                long countAt = in.position();
                long count = in.getUnsignedInt("READ3resok.count");
                boolean eof = in.getBoolean();
                int max = (int) Math.min(target.byteSize(), Integer.MAX_VALUE);
                MemorySegment data = placement.getEligibleOpaque(in, max);
                if (data.byteSize() != count) {
                    throw new XdrException(XdrException.Reason.INVALID_VALUE, countAt, "READ3resok count " + count
                            + " differs from its data length " + data.byteSize());
                }
                MemorySegment into = target.asSlice(0, count);
                if (!data.equals(into)) { // came inline: copy; placed directly: it is already there
                    MemorySegment.copy(data, 0, into, 0, count);
                }
                return new Nfs3Result<>(status, new ReadResult(attributes, (int) count, eof, into));
            }

            @Override
            public MemorySegment placementTarget() {
                return target;
            }

            @Override
            public long maxResultsSize() {
                return Xdr.INT_SIZE + POST_OP_ATTR_MAX + 2 * Xdr.INT_SIZE + Xdr.opaqueSize(target.byteSize());
            }
        };
    }

    /** {@code WRITE3res} (RFC 1813 section 3.3.7); on failure only the file's {@code wcc_data}. */
    public static Nfs3Result<WriteResult> writeResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        WccData wcc = WccData.decode(in);
        if (status != NfsStat3.NFS3_OK) {
            return new Nfs3Result<>(status, null);
        }
        int count = (int) in.getUnsignedInt("WRITE3resok.count");
        StableHow committed = in.getEnum(StableHow::of, "stable_how");
        return new Nfs3Result<>(status, new WriteResult(wcc, count, committed, in.getHyper()));
    }

    /** {@code COMMIT3res} (RFC 1813 section 3.3.21); on failure only the file's {@code wcc_data}. */
    public static Nfs3Result<CommitResult> commitResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        WccData wcc = WccData.decode(in);
        if (status != NfsStat3.NFS3_OK) {
            return new Nfs3Result<>(status, null);
        }
        return new Nfs3Result<>(status, new CommitResult(wcc, in.getHyper()));
    }

    /** {@code FSINFO3res} (RFC 1813 section 3.3.19); on failure only the object's {@code post_op_attr}. */
    public static Nfs3Result<FsInfo> fsinfoResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        if (status != NfsStat3.NFS3_OK) {
            Fattr3.decodePostOp(in);
            return new Nfs3Result<>(status, null);
        }
        return new Nfs3Result<>(status, FsInfo.decode(in));
    }

    /** {@code READDIR3res} (RFC 1813 section 3.3.16): the entries are an XDR linked list of {@code entry3}. */
    public static Nfs3Result<DirList3> readdirResults(XdrDecoder in) {
        return dirList(in, false);
    }

    /** {@code READDIRPLUS3res} (RFC 1813 section 3.3.17): entries with attributes and handles. */
    public static Nfs3Result<DirList3> readdirplusResults(XdrDecoder in) {
        return dirList(in, true);
    }

    private static Nfs3Result<DirList3> dirList(XdrDecoder in, boolean plus) {
        NfsStat3 status = status(in);
        Fattr3 directory = Fattr3.decodePostOp(in);
        if (status != NfsStat3.NFS3_OK) {
            return new Nfs3Result<>(status, null);
        }
        long verifier = in.getHyper();
        List<DirEntry3> entries = new ArrayList<>();
        // "entry3 *nextentry": optional-data chained (RFC 4506 section 4.19); each link takes at least 4 bytes of
        // the message, so a hostile list ends where the message does
        while (in.getBoolean()) {
            long fileid = in.getUnsignedHyper();
            String name = in.getString(Integer.MAX_VALUE);
            long cookie = in.getUnsignedHyper();
            Fattr3 attributes = null;
            FileHandle3 handle = null;
            if (plus) {
                attributes = Fattr3.decodePostOp(in);
                handle = in.getBoolean() ? FileHandle3.decode(in) : null; // post_op_fh3
            }
            entries.add(new DirEntry3(fileid, name, cookie, attributes, handle));
        }
        boolean eof = in.getBoolean();
        return new Nfs3Result<>(status, new DirList3(directory, verifier, entries, eof));
    }
}
