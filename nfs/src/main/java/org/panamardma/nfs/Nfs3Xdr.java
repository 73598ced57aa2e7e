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
 * encoders (the records of {@link Nfs3Args}, which the server decodes: one definition for both sides) and result
 * readers ({@link ReplyReader}).
 *
 * <p>Direct data placement (RFC 8267 section 4.1: in NFSv3 only the opaque data of READ results and WRITE
 * arguments are DDP-eligible): {@link #write} writes its data with {@code putEligibleOpaque}, and {@link #readResults}
 * reads its data through the {@link ReplyPlacement}, with the caller's buffer as the placement target.
 */
public final class Nfs3Xdr {
    /**
     * {@code filename3} is {@code string<>}; Linux and most servers cap names at 255 bytes (NAME_MAX), and answer a
     * longer one NFS3ERR_NAMETOOLONG.
     */
    public static final int MAX_NAME = 255;
    /** Encoded size of {@code post_op_attr} holding attributes. */
    static final int POST_OP_ATTR_MAX = Xdr.INT_SIZE + Nfs3.FATTR3_SIZE;

    private Nfs3Xdr() {}

    // ---- arguments: the shared records of Nfs3Args, which the server decodes -------------------------------------

    /** {@code GETATTR3args}: the object's handle (RFC 1813 section 3.3.1). */
    public static XdrEncodable getattr(FileHandle3 object) {
        return object::encodeTo;
    }

    /** {@code LOOKUP3args}: {@code diropargs3}, the directory's handle and a name (RFC 1813 section 3.3.3). */
    public static XdrEncodable lookup(FileHandle3 directory, String name) {
        return Nfs3Args.DirOp.utf8(directory, name);
    }

    /** {@code READ3args} (RFC 1813 section 3.3.6). */
    public static XdrEncodable read(FileHandle3 file, long offset, int count) {
        requireCount(count);
        return new Nfs3Args.ReadArgs(file, offset, count);
    }

    /**
     * {@code WRITE3args} (RFC 1813 section 3.3.7); {@code count} is the data's length and the data is DDP-eligible.
     */
    public static XdrEncodable write(FileHandle3 file, long offset, StableHow stable, MemorySegment data) {
        if (data.byteSize() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("WRITE of " + data.byteSize() + " bytes: at most 2^31-1 per call");
        }
        return new Nfs3Args.WriteArgs(file, offset, data.byteSize(), stable, data);
    }

    /** {@code FSINFO3args}: a handle in the file system, normally its root (RFC 1813 section 3.3.19). */
    public static XdrEncodable fsinfo(FileHandle3 fsroot) {
        return fsroot::encodeTo;
    }

    /** {@code COMMIT3args} (RFC 1813 section 3.3.21); count 0 commits from offset to the end of the file. */
    public static XdrEncodable commit(FileHandle3 file, long offset, int count) {
        requireCount(count);
        return new Nfs3Args.CommitArgs(file, offset, count);
    }

    /**
     * {@code READDIR3args} (RFC 1813 section 3.3.16).
     *
     * @param count the largest {@code READDIR3resok} the server may return, XDR overhead included
     */
    public static XdrEncodable readdir(FileHandle3 directory, long cookie, long cookieVerifier, int count) {
        requireCount(count);
        return new Nfs3Args.ReaddirArgs(directory, cookie, cookieVerifier, count, count, false);
    }

    /**
     * {@code READDIRPLUS3args} (RFC 1813 section 3.3.17).
     *
     * @param dirCount the most bytes of directory information (file ids, names and cookies) to return
     * @param maxCount the largest {@code READDIRPLUS3resok}, XDR overhead included
     */
    public static XdrEncodable readdirplus(
            FileHandle3 directory, long cookie, long cookieVerifier, int dirCount, int maxCount) {
        requireCount(dirCount);
        requireCount(maxCount);
        return new Nfs3Args.ReaddirArgs(directory, cookie, cookieVerifier, dirCount, maxCount, true);
    }

    /** {@code SETATTR3args} (RFC 1813 section 3.3.2); {@code guard} is the ctime to check, or null for none. */
    public static XdrEncodable setattr(FileHandle3 object, Sattr3 attributes, NfsTime3 guard) {
        return new Nfs3Args.SetattrArgs(object, attributes, guard);
    }

    /** {@code ACCESS3args} (RFC 1813 section 3.3.4): the handle and the {@code ACCESS3_*} bits asked about. */
    public static XdrEncodable access(FileHandle3 object, int access) {
        return new Nfs3Args.AccessArgs(object, access);
    }

    /** {@code diropargs3}: a directory and a name, as bytes (REMOVE, RMDIR, and the start of others). */
    public static XdrEncodable dirop(FileHandle3 directory, byte[] name) {
        return new Nfs3Args.DirOp(directory, new String(name, java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    /**
     * {@code CREATE3args} (RFC 1813 section 3.3.8).
     *
     * @param mode {@link Nfs3#CREATE_UNCHECKED}, {@link Nfs3#CREATE_GUARDED} (with {@code attributes}) or
     *             {@link Nfs3#CREATE_EXCLUSIVE} (with {@code verifier})
     */
    public static XdrEncodable create(FileHandle3 directory, String name, int mode, Sattr3 attributes, long verifier) {
        return Nfs3Args.CreateArgs.of(Nfs3Args.DirOp.utf8(directory, name), mode, attributes, verifier);
    }

    /** {@code MKDIR3args} (RFC 1813 section 3.3.9). */
    public static XdrEncodable mkdir(FileHandle3 directory, String name, Sattr3 attributes) {
        return new Nfs3Args.MkdirArgs(Nfs3Args.DirOp.utf8(directory, name), attributes);
    }

    /** {@code SYMLINK3args} (RFC 1813 section 3.3.10). */
    public static XdrEncodable symlink(FileHandle3 directory, String name, Sattr3 attributes, String target) {
        return new Nfs3Args.SymlinkArgs(Nfs3Args.DirOp.utf8(directory, name), attributes, Nfs3Args.utf8Bytes(target));
    }

    /** {@code MKNOD3args} (RFC 1813 section 3.3.11); {@code major}/{@code minor} only for devices. */
    public static XdrEncodable mknod(
            FileHandle3 directory, String name, FileType3 type, Sattr3 attributes, int major, int minor) {
        return new Nfs3Args.MknodArgs(Nfs3Args.DirOp.utf8(directory, name), type, attributes, major, minor);
    }

    /** {@code RENAME3args} (RFC 1813 section 3.3.14). */
    public static XdrEncodable rename(
            FileHandle3 fromDirectory, String fromName, FileHandle3 toDirectory, String toName) {
        return new Nfs3Args.RenameArgs(
                Nfs3Args.DirOp.utf8(fromDirectory, fromName), Nfs3Args.DirOp.utf8(toDirectory, toName));
    }

    /** {@code LINK3args} (RFC 1813 section 3.3.15). */
    public static XdrEncodable link(FileHandle3 file, FileHandle3 directory, String name) {
        return new Nfs3Args.LinkArgs(file, Nfs3Args.DirOp.utf8(directory, name));
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
                    throw new XdrException(
                            XdrException.Reason.INVALID_VALUE,
                            countAt,
                            "READ3resok count " + count + " differs from its data length " + data.byteSize());
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

    /** Results whose every arm is {@code wcc_data} (SETATTR, REMOVE, RMDIR). */
    public static Nfs3Result<WccData> wccResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        WccData wcc = WccData.decode(in);
        return new Nfs3Result<>(status, status == NfsStat3.NFS3_OK ? wcc : null);
    }

    /** {@code ACCESS3res} (RFC 1813 section 3.3.4): the bits granted. */
    public static Nfs3Result<Integer> accessResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        Fattr3.decodePostOp(in);
        return new Nfs3Result<>(status, status == NfsStat3.NFS3_OK ? in.getInt("access") : null);
    }

    /** {@code READLINK3res} (RFC 1813 section 3.3.5): the target, as UTF-8. */
    public static Nfs3Result<String> readlinkResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        Fattr3.decodePostOp(in);
        if (status != NfsStat3.NFS3_OK) {
            return new Nfs3Result<>(status, null);
        }
        return new Nfs3Result<>(
                status, new String(in.getOpaqueBytes(Integer.MAX_VALUE), java.nio.charset.StandardCharsets.UTF_8));
    }

    /** {@code diropres3}-shaped results of CREATE, MKDIR, SYMLINK, MKNOD (RFC 1813 sections 3.3.8 to 3.3.11). */
    public static Nfs3Result<DirOpResult> dirOpResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        if (status != NfsStat3.NFS3_OK) {
            WccData.decode(in);
            return new Nfs3Result<>(status, null);
        }
        FileHandle3 handle = in.getBoolean() ? FileHandle3.decode(in) : null;
        Fattr3 attributes = Fattr3.decodePostOp(in);
        return new Nfs3Result<>(status, new DirOpResult(handle, attributes, WccData.decode(in)));
    }

    /** {@code RENAME3res} (RFC 1813 section 3.3.14). */
    public static Nfs3Result<RenameResult> renameResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        RenameResult r = new RenameResult(WccData.decode(in), WccData.decode(in));
        return new Nfs3Result<>(status, status == NfsStat3.NFS3_OK ? r : null);
    }

    /** {@code LINK3res} (RFC 1813 section 3.3.15). */
    public static Nfs3Result<LinkResult> linkResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        LinkResult r = new LinkResult(Fattr3.decodePostOp(in), WccData.decode(in));
        return new Nfs3Result<>(status, status == NfsStat3.NFS3_OK ? r : null);
    }

    /** {@code FSSTAT3res} (RFC 1813 section 3.3.18). */
    public static Nfs3Result<FsStat> fsstatResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        Fattr3 attributes = Fattr3.decodePostOp(in);
        if (status != NfsStat3.NFS3_OK) {
            return new Nfs3Result<>(status, null);
        }
        return new Nfs3Result<>(
                status,
                new FsStat(
                        attributes,
                        in.getUnsignedHyper(),
                        in.getUnsignedHyper(),
                        in.getUnsignedHyper(),
                        in.getUnsignedHyper(),
                        in.getUnsignedHyper(),
                        in.getUnsignedHyper(),
                        in.getUnsignedInt("invarsec")));
    }

    /** {@code PATHCONF3res} (RFC 1813 section 3.3.20). */
    public static Nfs3Result<PathConf> pathconfResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        Fattr3 attributes = Fattr3.decodePostOp(in);
        if (status != NfsStat3.NFS3_OK) {
            return new Nfs3Result<>(status, null);
        }
        return new Nfs3Result<>(
                status,
                new PathConf(
                        attributes,
                        in.getUnsignedInt("linkmax"),
                        in.getUnsignedInt("name_max"),
                        in.getBoolean(),
                        in.getBoolean(),
                        in.getBoolean(),
                        in.getBoolean()));
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
