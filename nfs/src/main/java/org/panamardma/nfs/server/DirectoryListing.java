package org.panamardma.nfs.server;

import static org.panamardma.nfs.server.Nfs3Server.MAX_DIR_REPLY;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.panamardma.nfs.Fattr3;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.Nfs3Args.ReaddirArgs;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.xdr.Xdr;
import org.panamardma.xdr.XdrEncodable;

/**
 * READDIR and READDIRPLUS (RFC 1813 sections 3.3.16 and 3.3.17): a directory's entries from getdents64, as many as
 * fit the client's counts and this server's cap, with cookies that stay valid across changes and restarts.
 */
final class DirectoryListing extends ProcedureBase {
    DirectoryListing(ExportFs fs) {
        super(fs);
    }

    /** One directory entry to return. */
    private record Entry(long fileid, String name, long cookie, Fattr3 attributes, FileHandle3 handle) {}

    /** The cookie verifier of a directory: stable across restarts (the cookies are the file system's offsets). */
    private long cookieVerifier(Stat dir) {
        byte[] in = ByteBuffer.allocate(20)
                .putInt(0x636f6f6b)
                .putLong(dir.ino())
                .putInt(dir.generation())
                .putInt(fs.handles().exportId())
                .array();
        long v = ByteBuffer.wrap(fs.handles().mac(in, 0, in.length)).getLong();
        return v == 0 ? 1 : v;
    }

    /** XDR size of a name. */
    private static long nameSize(String name) {
        return Xdr.opaqueSize(name.length());
    }

    /**
     * READDIR (section 3.3.16) and READDIRPLUS (section 3.3.17). Cookies are the file system's directory offsets
     * ({@code d_off} of getdents64), which stay valid across changes of the directory and restarts of the server;
     * so the cookie verifier is fixed per directory, and a non-zero one that is not the directory's is
     * NFS3ERR_BAD_COOKIE. Replies hold as many entries as fit {@code count} (READDIR) or {@code dircount} and
     * {@code maxcount} (READDIRPLUS), each capped at {@link Nfs3Server#MAX_DIR_REPLY}; not even one fitting is
     * NFS3ERR_TOOSMALL.
     */
    XdrEncodable readdir(ReaddirArgs a, Caller c) throws NfsError, PosixException {
        try (ExportFs.Node dir = fs.resolve(a.dir())) {
            requireDirectory(dir);
            if (!Permissions.may(dir, Permissions.READ)) {
                throw new NfsError(NfsStat3.NFS3ERR_ACCES, c + " may not list the directory");
            }
            Stat dirStat = dir.stat();
            long verifier = cookieVerifier(dirStat);
            if (a.cookie() != 0 && a.verifier() != 0 && a.verifier() != verifier) {
                throw new NfsError(NfsStat3.NFS3ERR_BAD_COOKIE, "cookie verifier " + Long.toHexString(a.verifier()));
            }
            if (a.cookie() < 0) {
                throw new NfsError(NfsStat3.NFS3ERR_BAD_COOKIE, "cookie beyond 2^63");
            }
            long maxCount = Math.min(a.maxCount(), MAX_DIR_REPLY);
            long dirCount = a.plus() ? Math.min(a.dirCount(), MAX_DIR_REPLY) : Long.MAX_VALUE;
            Fattr3 dirAttributes = attributes(dirStat);
            // READDIR3resok: post_op_attr, cookieverf, the entries' links, the list's end and eof
            long size = 4 + Nfs3.FATTR3_SIZE + 8 + 4 + 4;
            long dirInfo = 0;
            List<Entry> entries = new ArrayList<>();
            boolean eof = false;
            int dfd = fs.openForIo(dir, Posix.O_RDONLY | Posix.O_DIRECTORY);
            try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
                if (a.cookie() != 0) {
                    try {
                        Posix.lseek(dfd, a.cookie(), Posix.SEEK_SET);
                    } catch (PosixException e) {
                        throw new NfsError(NfsStat3.NFS3ERR_BAD_COOKIE, "cookie " + a.cookie());
                    }
                }
                MemorySegment buf = arena.allocate(32 << 10, 8);
                fill:
                while (true) {
                    long n = Posix.getdents64(dfd, buf);
                    if (n == 0) {
                        eof = true;
                        break;
                    }
                    for (long at = 0; at < n; ) {
                        Dirent e = Dirent.at(buf, at);
                        at += e.reclen();
                        long fileid = e.ino();
                        if (e.name().equals("..") && dir.isRoot()) {
                            fileid = dirStat.ino(); // nothing above the export shows
                        }
                        long entrySize = 4 + 8 + nameSize(e.name()) + 8;
                        Fattr3 attrs = null;
                        FileHandle3 handle = null;
                        if (a.plus()) {
                            Stat s = entryStat(dir, dfd, e.name());
                            if (s != null) {
                                attrs = attributes(s);
                                handle = entryHandle(dir, e.name(), s);
                                if (e.name().equals("..") && dir.isRoot()) {
                                    attrs = dirAttributes;
                                }
                            }
                            entrySize += 4
                                    + (attrs == null ? 0 : Nfs3.FATTR3_SIZE)
                                    + 4
                                    + (handle == null ? 0 : Xdr.opaqueSize(handle.bytes().length));
                        }
                        long entryInfo = 8 + nameSize(e.name()) + 8;
                        if (size + entrySize > maxCount || dirInfo + entryInfo > dirCount) {
                            break fill;
                        }
                        size += entrySize;
                        dirInfo += entryInfo;
                        entries.add(new Entry(fileid, e.name(), e.off(), attrs, handle));
                    }
                }
            } finally {
                Posix.close(dfd);
            }
            if (entries.isEmpty() && !eof) {
                throw new NfsError(NfsStat3.NFS3ERR_TOOSMALL, "count " + a.maxCount() + " holds no entry");
            }
            boolean plus = a.plus();
            boolean atEnd = eof;
            return out -> {
                ok(out);
                Fattr3.encodePostOp(out, dirAttributes);
                out.putHyper(verifier);
                for (Entry e : entries) {
                    out.putBoolean(true).putUnsignedHyper(e.fileid());
                    out.putOpaque(e.name().getBytes(StandardCharsets.ISO_8859_1), Integer.MAX_VALUE);
                    out.putUnsignedHyper(e.cookie());
                    if (plus) {
                        Fattr3.encodePostOp(out, e.attributes());
                        out.putBoolean(e.handle() != null);
                        if (e.handle() != null) {
                            e.handle().encodeTo(out);
                        }
                    }
                }
                out.putBoolean(false).putBoolean(atEnd);
            };
        }
    }

    /** Status of an entry for READDIRPLUS, or null if it went away or lies on another file system. */
    private Stat entryStat(ExportFs.Node dir, int dfd, String name) {
        try {
            if (name.equals("..") && dir.isRoot()) {
                return dir.stat();
            }
            Stat s = fs.identifyAt(dfd, name);
            return fs.sameFileSystem(s) ? s : null;
        } catch (PosixException e) {
            return null;
        }
    }

    /** The handle of a listed entry; "." and ".." included. */
    private FileHandle3 entryHandle(ExportFs.Node dir, String name, Stat s) {
        if (name.equals(".") || (name.equals("..") && dir.isRoot())) {
            return fs.handleOf(dir);
        }
        if (name.equals("..")) {
            FileHandles.Decoded d = dir.handle();
            return fs.handles().encode(d.depth() - 1, s.ino(), s.generation(), d.parentHints());
        }
        return fs.childHandle(dir, name, s);
    }
}
