package org.panamardma.nfs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * The arguments of the NFSv3 procedures (RFC 1813 section 3), once for both sides: each a record the client encodes
 * ({@link XdrEncodable}, through {@link Nfs3Xdr}'s factories) and the server decodes ({@code decode}). GETATTR,
 * READLINK, FSSTAT, FSINFO and PATHCONF take a bare {@link FileHandle3}.
 *
 * <p>Names and symbolic-link targets are byte strings: Linux names are bytes, not text, so a {@code String} here
 * holds one char per byte (ISO-8859-1), exactly what the wire carries; {@link DirOp#utf8} makes one from text.
 */
public final class Nfs3Args {
    /**
     * How long a {@code filename3} or {@code nfspath3} may be and still decode: PATH_MAX. A name longer than
     * NAME_MAX (255) decodes, so that a server answers it NFS3ERR_NAMETOOLONG rather than GARBAGE_ARGS.
     */
    public static final int PATH_DECODE_MAX = 4096;

    private Nfs3Args() {}

    /** A byte string read from {@code in}: a {@code filename3} or {@code nfspath3} of at most {@code max} bytes. */
    static String byteString(XdrDecoder in, int max) {
        return new String(in.getOpaqueBytes(max), StandardCharsets.ISO_8859_1);
    }

    static void putByteString(XdrEncoder out, String byteString) {
        out.putOpaque(byteString.getBytes(StandardCharsets.ISO_8859_1), Integer.MAX_VALUE);
    }

    /** The byte string of {@code text}'s UTF-8 bytes. */
    static String utf8Bytes(String text) {
        return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    /** {@code diropargs3}: a directory and a name in it (LOOKUP, REMOVE, RMDIR, and the start of others). */
    public record DirOp(FileHandle3 dir, String name) implements XdrEncodable {
        /** @param name the name as text, sent as its UTF-8 bytes */
        public static DirOp utf8(FileHandle3 dir, String name) {
            return new DirOp(dir, utf8Bytes(name));
        }

        public static DirOp decode(XdrDecoder in) {
            return new DirOp(FileHandle3.decode(in), byteString(in, PATH_DECODE_MAX));
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            dir.encodeTo(out);
            putByteString(out, name);
        }
    }

    /** {@code SETATTR3args} (section 3.3.2); {@code guard} is the ctime to check, or null for none. */
    public record SetattrArgs(FileHandle3 object, Sattr3 attributes, NfsTime3 guard) implements XdrEncodable {
        public static SetattrArgs decode(XdrDecoder in) {
            FileHandle3 fh = FileHandle3.decode(in);
            Sattr3 s = Sattr3.decode(in);
            NfsTime3 guard = in.getBoolean() ? NfsTime3.decode(in) : null;
            return new SetattrArgs(fh, s, guard);
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            object.encodeTo(out);
            attributes.encodeTo(out);
            out.putBoolean(guard != null);
            if (guard != null) {
                guard.encodeTo(out);
            }
        }
    }

    /** {@code ACCESS3args} (section 3.3.4): the handle and the {@code ACCESS3_*} bits asked about. */
    public record AccessArgs(FileHandle3 object, int access) implements XdrEncodable {
        public static AccessArgs decode(XdrDecoder in) {
            return new AccessArgs(FileHandle3.decode(in), in.getInt("access"));
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            object.encodeTo(out);
            out.putInt(access);
        }
    }

    /** {@code READ3args} (section 3.3.6). */
    public record ReadArgs(FileHandle3 file, long offset, long count) implements XdrEncodable {
        public static ReadArgs decode(XdrDecoder in) {
            return new ReadArgs(FileHandle3.decode(in), in.getUnsignedHyper(), in.getUnsignedInt("count"));
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            file.encodeTo(out);
            out.putUnsignedHyper(offset).putUnsignedInt(count);
        }
    }

    /**
     * {@code WRITE3args} (section 3.3.7). The data is DDP-eligible (RFC 8267 section 4.1) when encoded; decoded,
     * {@code data} is a view of the call's memory, never a copy, and {@code count} is what the client declared.
     */
    public record WriteArgs(FileHandle3 file, long offset, long count, StableHow stable, MemorySegment data)
            implements XdrEncodable {
        public static WriteArgs decode(XdrDecoder in) {
            FileHandle3 fh = FileHandle3.decode(in);
            long offset = in.getUnsignedHyper();
            long count = in.getUnsignedInt("count");
            StableHow stable = in.getEnum(StableHow::of, "stable_how");
            return new WriteArgs(fh, offset, count, stable, in.getOpaque(Integer.MAX_VALUE));
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            file.encodeTo(out);
            out.putUnsignedHyper(offset).putUnsignedInt(count).putEnum(stable.code());
            out.putEligibleOpaque(data, Integer.MAX_VALUE);
        }
    }

    /**
     * {@code CREATE3args} (section 3.3.8): {@code attributes} for UNCHECKED and GUARDED, the 8-byte
     * {@code verifier} for EXCLUSIVE.
     */
    public record CreateArgs(DirOp where, int mode, Sattr3 attributes, byte[] verifier) implements XdrEncodable {
        /** @param verifier EXCLUSIVE's {@code createverf3}, as a big-endian number */
        public static CreateArgs of(DirOp where, int mode, Sattr3 attributes, long verifier) {
            return mode == Nfs3.CREATE_EXCLUSIVE
                    ? new CreateArgs(
                            where,
                            mode,
                            Sattr3.NONE,
                            ByteBuffer.allocate(8).putLong(verifier).array())
                    : new CreateArgs(where, mode, attributes, null);
        }

        public static CreateArgs decode(XdrDecoder in) {
            DirOp where = DirOp.decode(in);
            long at = in.position();
            int mode = in.getEnum();
            return switch (mode) {
                case Nfs3.CREATE_UNCHECKED, Nfs3.CREATE_GUARDED -> new CreateArgs(where, mode, Sattr3.decode(in), null);
                case Nfs3.CREATE_EXCLUSIVE ->
                    new CreateArgs(
                            where, mode, Sattr3.NONE, in.getFixedOpaque(8).toArray(ValueLayout.JAVA_BYTE));
                default -> throw new XdrException(XdrException.Reason.INVALID_VALUE, at, "createmode3 " + mode);
            };
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            where.encodeTo(out);
            out.putEnum(mode);
            if (mode == Nfs3.CREATE_EXCLUSIVE) {
                out.putFixedOpaque(verifier);
            } else {
                attributes.encodeTo(out);
            }
        }
    }

    /** {@code MKDIR3args} (section 3.3.9). */
    public record MkdirArgs(DirOp where, Sattr3 attributes) implements XdrEncodable {
        public static MkdirArgs decode(XdrDecoder in) {
            return new MkdirArgs(DirOp.decode(in), Sattr3.decode(in));
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            where.encodeTo(out);
            attributes.encodeTo(out);
        }
    }

    /** {@code SYMLINK3args} (section 3.3.10); {@code target} is a byte string. */
    public record SymlinkArgs(DirOp where, Sattr3 attributes, String target) implements XdrEncodable {
        public static SymlinkArgs decode(XdrDecoder in) {
            return new SymlinkArgs(DirOp.decode(in), Sattr3.decode(in), byteString(in, PATH_DECODE_MAX));
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            where.encodeTo(out);
            attributes.encodeTo(out);
            putByteString(out, target);
        }
    }

    /** {@code MKNOD3args} (section 3.3.11): attributes for devices, sockets and FIFOs, numbers for devices. */
    public record MknodArgs(DirOp where, FileType3 type, Sattr3 attributes, int major, int minor)
            implements XdrEncodable {
        public static MknodArgs decode(XdrDecoder in) {
            DirOp where = DirOp.decode(in);
            FileType3 type = in.getEnum(FileType3::of, "ftype3");
            return switch (type) {
                case NF3CHR, NF3BLK -> new MknodArgs(where, type, Sattr3.decode(in), in.getInt(), in.getInt());
                case NF3SOCK, NF3FIFO -> new MknodArgs(where, type, Sattr3.decode(in), 0, 0);
                default -> new MknodArgs(where, type, Sattr3.NONE, 0, 0);
            };
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            where.encodeTo(out);
            out.putEnum(type.code());
            switch (type) {
                case NF3CHR, NF3BLK -> {
                    attributes.encodeTo(out);
                    out.putInt(major).putInt(minor);
                }
                case NF3SOCK, NF3FIFO -> attributes.encodeTo(out);
                default -> {}
            }
        }
    }

    /** {@code RENAME3args} (section 3.3.14). */
    public record RenameArgs(DirOp from, DirOp to) implements XdrEncodable {
        public static RenameArgs decode(XdrDecoder in) {
            return new RenameArgs(DirOp.decode(in), DirOp.decode(in));
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            from.encodeTo(out);
            to.encodeTo(out);
        }
    }

    /** {@code LINK3args} (section 3.3.15). */
    public record LinkArgs(FileHandle3 file, DirOp link) implements XdrEncodable {
        public static LinkArgs decode(XdrDecoder in) {
            return new LinkArgs(FileHandle3.decode(in), DirOp.decode(in));
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            file.encodeTo(out);
            link.encodeTo(out);
        }
    }

    /**
     * {@code READDIR3args} (section 3.3.16, {@code plus} false: one {@code count}, kept in both counts) and
     * {@code READDIRPLUS3args} (section 3.3.17: {@code dircount} and {@code maxcount}).
     */
    public record ReaddirArgs(FileHandle3 dir, long cookie, long verifier, long dirCount, long maxCount, boolean plus)
            implements XdrEncodable {
        public static ReaddirArgs decodeReaddir(XdrDecoder in) {
            FileHandle3 fh = FileHandle3.decode(in);
            long cookie = in.getUnsignedHyper();
            long verifier = in.getHyper();
            long count = in.getUnsignedInt("count");
            return new ReaddirArgs(fh, cookie, verifier, count, count, false);
        }

        public static ReaddirArgs decodeReaddirplus(XdrDecoder in) {
            FileHandle3 fh = FileHandle3.decode(in);
            long cookie = in.getUnsignedHyper();
            long verifier = in.getHyper();
            return new ReaddirArgs(
                    fh, cookie, verifier, in.getUnsignedInt("dircount"), in.getUnsignedInt("maxcount"), true);
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            dir.encodeTo(out);
            out.putUnsignedHyper(cookie).putHyper(verifier);
            if (plus) {
                out.putUnsignedInt(dirCount);
            }
            out.putUnsignedInt(maxCount);
        }
    }

    /** {@code COMMIT3args} (section 3.3.21); count 0 commits from offset to the end of the file. */
    public record CommitArgs(FileHandle3 file, long offset, long count) implements XdrEncodable {
        public static CommitArgs decode(XdrDecoder in) {
            return new CommitArgs(FileHandle3.decode(in), in.getUnsignedHyper(), in.getUnsignedInt("count"));
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            file.encodeTo(out);
            out.putUnsignedHyper(offset).putUnsignedInt(count);
        }
    }
}
