package org.panamardma.nfs;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.panamardma.nfs.rpc.ReplyPlacement;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.xdr.Xdr;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrException;

/**
 * The results of the NFSv3 procedures this client calls, as XDR (RFC 1813 section 3): a reader of each
 * {@code *3res}, from its {@code nfsstat3} on, into an {@link Nfs3Result}. Their arguments are encoded by
 * {@link Nfs3Xdr}.
 *
 * <p>Every reader reads the whole result, the failure arm included (the attributes a failed call still carries are
 * read and dropped), so that what follows in the message is where the caller expects it. Direct data placement
 * (RFC 8267 section 4.1): {@link #readResults} reads READ's data through the {@link ReplyPlacement}, with the
 * caller's buffer as the placement target, so an RDMA transport can have the server write it there.
 */
public final class Nfs3ResultsXdr {
    /** Encoded size of {@code post_op_attr} holding attributes. */
    static final int POST_OP_ATTR_MAX = Xdr.INT_SIZE + Nfs3.FATTR3_SIZE;

    private Nfs3ResultsXdr() {}

    private static NfsStat3 status(XdrDecoder in) {
        return in.getEnum(NfsStat3::of, "nfsstat3");
    }

    /**
     * {@code GETATTR3res}: on NFS3_OK the attributes, on failure nothing (RFC 1813 section 3.3.1).
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
    public static Nfs3Result<Fattr3> getattrResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        return new Nfs3Result<>(status, status == NfsStat3.NFS3_OK ? Fattr3.decode(in) : null);
    }

    /**
     * {@code LOOKUP3res} (RFC 1813 section 3.3.3); on failure only the directory's {@code post_op_attr}.
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
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
     * @return the reader of the READ results, with the data in {@code target}
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

    /**
     * {@code WRITE3res} (RFC 1813 section 3.3.7); on failure only the file's {@code wcc_data}.
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
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

    /**
     * {@code COMMIT3res} (RFC 1813 section 3.3.21); on failure only the file's {@code wcc_data}.
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
    public static Nfs3Result<CommitResult> commitResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        WccData wcc = WccData.decode(in);
        if (status != NfsStat3.NFS3_OK) {
            return new Nfs3Result<>(status, null);
        }
        return new Nfs3Result<>(status, new CommitResult(wcc, in.getHyper()));
    }

    /**
     * {@code FSINFO3res} (RFC 1813 section 3.3.19); on failure only the object's {@code post_op_attr}.
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
    public static Nfs3Result<FsInfo> fsinfoResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        if (status != NfsStat3.NFS3_OK) {
            Fattr3.decodePostOp(in);
            return new Nfs3Result<>(status, null);
        }
        return new Nfs3Result<>(status, FsInfo.decode(in));
    }

    /**
     * Results whose every arm is {@code wcc_data} (SETATTR, REMOVE, RMDIR).
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
    public static Nfs3Result<WccData> wccResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        WccData wcc = WccData.decode(in);
        return new Nfs3Result<>(status, status == NfsStat3.NFS3_OK ? wcc : null);
    }

    /**
     * {@code ACCESS3res} (RFC 1813 section 3.3.4): the bits granted.
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
    public static Nfs3Result<Integer> accessResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        Fattr3.decodePostOp(in);
        return new Nfs3Result<>(status, status == NfsStat3.NFS3_OK ? in.getInt("access") : null);
    }

    /**
     * {@code READLINK3res} (RFC 1813 section 3.3.5): the target, as UTF-8.
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
    public static Nfs3Result<String> readlinkResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        Fattr3.decodePostOp(in);
        if (status != NfsStat3.NFS3_OK) {
            return new Nfs3Result<>(status, null);
        }
        return new Nfs3Result<>(status, new String(in.getOpaqueBytes(Integer.MAX_VALUE), StandardCharsets.UTF_8));
    }

    /**
     * {@code diropres3}-shaped results of CREATE, MKDIR, SYMLINK, MKNOD (RFC 1813 sections 3.3.8 to 3.3.11).
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
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

    /**
     * {@code RENAME3res} (RFC 1813 section 3.3.14).
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
    public static Nfs3Result<RenameResult> renameResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        RenameResult r = new RenameResult(WccData.decode(in), WccData.decode(in));
        return new Nfs3Result<>(status, status == NfsStat3.NFS3_OK ? r : null);
    }

    /**
     * {@code LINK3res} (RFC 1813 section 3.3.15).
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
    public static Nfs3Result<LinkResult> linkResults(XdrDecoder in) {
        NfsStat3 status = status(in);
        LinkResult r = new LinkResult(Fattr3.decodePostOp(in), WccData.decode(in));
        return new Nfs3Result<>(status, status == NfsStat3.NFS3_OK ? r : null);
    }

    /**
     * {@code FSSTAT3res} (RFC 1813 section 3.3.18).
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
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

    /**
     * {@code PATHCONF3res} (RFC 1813 section 3.3.20).
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
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

    /**
     * {@code READDIR3res} (RFC 1813 section 3.3.16): the entries are an XDR linked list of {@code entry3}.
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
    public static Nfs3Result<DirList3> readdirResults(XdrDecoder in) {
        return dirList(in, false);
    }

    /**
     * {@code READDIRPLUS3res} (RFC 1813 section 3.3.17): entries with attributes and handles.
     *
     * @param in positioned after the RPC reply header, at the {@code nfsstat3}
     * @return the status and, on NFS3_OK, the results (on failure, what the failure arm carries is read and dropped)
     */
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
