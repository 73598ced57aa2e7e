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

    /**
     * {@code diropargs3}: a directory and a name in it (LOOKUP, REMOVE, RMDIR, and the start of others).
     *
     * @param dir the directory's file handle
     * @param name the name as a byte string (one char per byte, ISO-8859-1), at most {@link #PATH_DECODE_MAX} bytes
     *        when decoded
     */
    public record DirOp(FileHandle3 dir, String name) implements XdrEncodable {
        /**
         * The arguments for a name given as text.
         *
         * @param dir the directory's file handle
         * @param name the name as text, sent as its UTF-8 bytes
         * @return the arguments, the name held as its UTF-8 bytes
         */
        public static DirOp utf8(FileHandle3 dir, String name) {
            return new DirOp(dir, utf8Bytes(name));
        }

        /**
         * Decodes the arguments as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated or hold a value RFC 1813 does not define (answered GARBAGE_ARGS)
         */
        public static DirOp decode(XdrDecoder in) {
            return new DirOp(FileHandle3.decode(in), byteString(in, PATH_DECODE_MAX));
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            dir.encodeTo(out);
            putByteString(out, name);
        }
    }

    /**
     * {@code SETATTR3args} (section 3.3.2); {@code guard} is the ctime to check, or null for none.
     *
     * @param object the object's file handle
     * @param attributes the attributes to set
     * @param guard the ctime the object must still have ({@code sattrguard3}), or null for no check
     */
    public record SetattrArgs(FileHandle3 object, Sattr3 attributes, NfsTime3 guard) implements XdrEncodable {
        /**
         * Decodes the arguments as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated or hold a value RFC 1813 does not define (answered GARBAGE_ARGS)
         */
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

    /**
     * {@code ACCESS3args} (section 3.3.4): the handle and the {@code ACCESS3_*} bits asked about.
     *
     * @param object the object's file handle
     * @param access the {@code ACCESS3_*} bits asked about ({@code Nfs3.ACCESS_*})
     */
    public record AccessArgs(FileHandle3 object, int access) implements XdrEncodable {
        /**
         * Decodes the arguments as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated or hold a value RFC 1813 does not define (answered GARBAGE_ARGS)
         */
        public static AccessArgs decode(XdrDecoder in) {
            return new AccessArgs(FileHandle3.decode(in), in.getInt("access"));
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            object.encodeTo(out);
            out.putInt(access);
        }
    }

    /**
     * {@code READ3args} (section 3.3.6).
     *
     * @param file the file's handle
     * @param offset the byte offset, an XDR {@code uint64} held as its 64 bits
     * @param count the bytes asked for, 0 to 2<sup>32</sup>-1 (a server caps it at its rtmax)
     */
    public record ReadArgs(FileHandle3 file, long offset, long count) implements XdrEncodable {
        /**
         * Decodes the arguments as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated or hold a value RFC 1813 does not define (answered GARBAGE_ARGS)
         */
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
     *
     * @param file the file's handle
     * @param offset the byte offset, an XDR {@code uint64} held as its 64 bits
     * @param count the byte count the client declared, 0 to 2<sup>32</sup>-1; a server checks it against {@code data}'s
     *        size
     * @param stable how durable the server must make the data before answering
     * @param data the data: when decoded, a slice of the call's memory, valid while the call is served
     */
    public record WriteArgs(FileHandle3 file, long offset, long count, StableHow stable, MemorySegment data)
            implements XdrEncodable {
        /**
         * Decodes the arguments as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated or hold a value RFC 1813 does not define (answered GARBAGE_ARGS)
         */
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
     *
     * @param where the directory and the new name
     * @param mode one of the {@code Nfs3.CREATE_*} modes
     * @param attributes the initial attributes (UNCHECKED, GUARDED); {@link Sattr3#NONE} for EXCLUSIVE
     * @param verifier the 8-byte {@code createverf3} (EXCLUSIVE), null otherwise
     */
    public record CreateArgs(DirOp where, int mode, Sattr3 attributes, byte[] verifier) implements XdrEncodable {
        /**
         * The arguments, the verifier given as a number.
         *
         * @param where the directory and the new name
         * @param mode one of the {@code Nfs3.CREATE_*} modes
         * @param attributes the initial attributes; ignored for EXCLUSIVE, which carries none
         * @param verifier EXCLUSIVE's {@code createverf3}, as a big-endian number
         * @return the arguments
         */
        public static CreateArgs of(DirOp where, int mode, Sattr3 attributes, long verifier) {
            return mode == Nfs3.CREATE_EXCLUSIVE
                    ? new CreateArgs(
                            where,
                            mode,
                            Sattr3.NONE,
                            ByteBuffer.allocate(8).putLong(verifier).array())
                    : new CreateArgs(where, mode, attributes, null);
        }

        /**
         * Decodes the arguments as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated or hold a value RFC 1813 does not define (answered GARBAGE_ARGS)
         */
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

    /**
     * {@code MKDIR3args} (section 3.3.9).
     *
     * @param where the parent directory and the new directory's name
     * @param attributes the initial attributes
     */
    public record MkdirArgs(DirOp where, Sattr3 attributes) implements XdrEncodable {
        /**
         * Decodes the arguments as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated or hold a value RFC 1813 does not define (answered GARBAGE_ARGS)
         */
        public static MkdirArgs decode(XdrDecoder in) {
            return new MkdirArgs(DirOp.decode(in), Sattr3.decode(in));
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            where.encodeTo(out);
            attributes.encodeTo(out);
        }
    }

    /**
     * {@code SYMLINK3args} (section 3.3.10); {@code target} is a byte string.
     *
     * @param where the directory and the link's name
     * @param attributes the link's initial attributes
     * @param target what the link points to, a byte string the server stores without checking
     */
    public record SymlinkArgs(DirOp where, Sattr3 attributes, String target) implements XdrEncodable {
        /**
         * Decodes the arguments as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated or hold a value RFC 1813 does not define (answered GARBAGE_ARGS)
         */
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

    /**
     * {@code MKNOD3args} (section 3.3.11): attributes for devices, sockets and FIFOs, numbers for devices.
     *
     * @param where the directory and the new name
     * @param type the object's type: NF3CHR, NF3BLK, NF3SOCK or NF3FIFO (a server answers others NFS3ERR_BADTYPE)
     * @param attributes the initial attributes; {@link Sattr3#NONE} for types that carry none
     * @param major the device's major number (NF3CHR, NF3BLK), else 0
     * @param minor the device's minor number (NF3CHR, NF3BLK), else 0
     */
    public record MknodArgs(DirOp where, FileType3 type, Sattr3 attributes, int major, int minor)
            implements XdrEncodable {
        /**
         * Decodes the arguments as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated or hold a value RFC 1813 does not define (answered GARBAGE_ARGS)
         */
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

    /**
     * {@code RENAME3args} (section 3.3.14).
     *
     * @param from the directory and name now
     * @param to the directory and new name
     */
    public record RenameArgs(DirOp from, DirOp to) implements XdrEncodable {
        /**
         * Decodes the arguments as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated or hold a value RFC 1813 does not define (answered GARBAGE_ARGS)
         */
        public static RenameArgs decode(XdrDecoder in) {
            return new RenameArgs(DirOp.decode(in), DirOp.decode(in));
        }

        @Override
        public void encodeTo(XdrEncoder out) {
            from.encodeTo(out);
            to.encodeTo(out);
        }
    }

    /**
     * {@code LINK3args} (section 3.3.15).
     *
     * @param file the existing file
     * @param link the directory and name of the new link
     */
    public record LinkArgs(FileHandle3 file, DirOp link) implements XdrEncodable {
        /**
         * Decodes the arguments as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated or hold a value RFC 1813 does not define (answered GARBAGE_ARGS)
         */
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
     *
     * @param dir the directory's file handle
     * @param cookie 0 to start, else the cookie of the last entry already received
     * @param verifier 0 to start, else the {@code cookieverf3} of the previous batch
     * @param dirCount READDIRPLUS's {@code dircount}: the most bytes of names and cookies; READDIR's {@code count}
     * @param maxCount READDIRPLUS's {@code maxcount}: the most bytes of results in all; READDIR's {@code count}
     * @param plus true for READDIRPLUS
     */
    public record ReaddirArgs(FileHandle3 dir, long cookie, long verifier, long dirCount, long maxCount, boolean plus)
            implements XdrEncodable {
        /**
         * Decodes {@code READDIR3args} as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated or hold a value RFC 1813 does not define (answered GARBAGE_ARGS)
         */
        public static ReaddirArgs decodeReaddir(XdrDecoder in) {
            FileHandle3 fh = FileHandle3.decode(in);
            long cookie = in.getUnsignedHyper();
            long verifier = in.getHyper();
            long count = in.getUnsignedInt("count");
            return new ReaddirArgs(fh, cookie, verifier, count, count, false);
        }

        /**
         * Decodes {@code READDIRPLUS3args} as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated or hold a value RFC 1813 does not define (answered GARBAGE_ARGS)
         */
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

    /**
     * {@code COMMIT3args} (section 3.3.21); count 0 commits from offset to the end of the file.
     *
     * @param file the file's handle
     * @param offset the first byte to commit
     * @param count the bytes to commit; 0 for up to the end of the file
     */
    public record CommitArgs(FileHandle3 file, long offset, long count) implements XdrEncodable {
        /**
         * Decodes the arguments as a server receives them.
         *
         * @param in positioned at the arguments, after the call header
         * @return the arguments
         * @throws XdrException if they are truncated (answered GARBAGE_ARGS)
         */
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
