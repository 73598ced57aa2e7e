package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.FileType3;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.Nfs3Client;
import org.panamardma.nfs.Nfs3ResultsXdr;
import org.panamardma.nfs.Nfs3Xdr;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.Sattr3;
import org.panamardma.nfs.StableHow;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.TcpRpcTransport;

/**
 * What a client must not be able to do: leave the export (.., symbolic links pointing out, a directory swapped for
 * a link after its handle was given out, a handle whose file was moved out of it), forge handles, act as root when
 * root is squashed, or get past the POSIX permissions the server checks for it.
 */
class NfsServerSecurityTest extends ServerFixtureTest {
    private static byte[] read(Nfs3Client nfs, FileHandle3 h) throws Exception {
        MemorySegment into = MemorySegment.ofArray(new byte[4096]);
        var r = nfs.read(h, 0, into);
        return into.asSlice(0, r.count()).toArray(ValueLayout.JAVA_BYTE);
    }

    /** A directory beside the export holding a file the export must never show. */
    private Path outsideSecret() throws Exception {
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), "OUTSIDE");
        Files.writeString(outside.resolve("f"), "OUTSIDE-F");
        return outside;
    }

    @Test
    void symbolicLinksPointingOutAreNeverFollowed() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Path outside = outsideSecret();
        Files.createSymbolicLink(fx.export.resolve("rel"), Path.of("../outside"));
        Files.createSymbolicLink(fx.export.resolve("abs"), outside);
        Files.createSymbolicLink(fx.export.resolve("file"), outside.resolve("secret.txt"));
        Nfs3Client nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
        for (String link : List.of("rel", "abs")) {
            var l = nfs.lookup(fx.root, link);
            assertEquals(FileType3.NF3LNK, l.attributes().type());
            assertEquals(NfsStat3.NFS3ERR_NOTDIR, status(() -> nfs.lookup(l.handle(), "secret.txt")));
            assertEquals(NfsStat3.NFS3ERR_NOTDIR, status(() -> nfs.readdir(l.handle(), 0, 0, 4096)));
        }
        FileHandle3 file = nfs.lookup(fx.root, "file").handle();
        assertEquals(NfsStat3.NFS3ERR_INVAL, status(() -> read(nfs, file)), "READ of a link, not of its target");
        assertEquals(
                NfsStat3.NFS3ERR_INVAL,
                status(() -> nfs.write(file, 0, MemorySegment.ofArray(new byte[3]), StableHow.FILE_SYNC)));
        assertEquals("OUTSIDE", Files.readString(outside.resolve("secret.txt")), "unchanged");
        assertEquals(fx.root, nfs.lookup(fx.root, "..").handle(), ".. of the root is the root");
        assertEquals(
                fx.root, nfs.lookup(nfs.lookup(fx.root, "..").handle(), "..").handle());
        for (String bad : List.of("../outside", "a/b", "/etc", "")) {
            assertEquals(NfsStat3.NFS3ERR_ACCES, status(() -> nfs.lookup(fx.root, bad)), bad);
        }
        // (this client refuses such a name itself: sent raw)
        var tooLong = fx.transport()
                .call(
                        Nfs3.PROGRAM,
                        3,
                        Nfs3.PROC_LOOKUP,
                        Nfs3Client.authSys("t", ServerFixture.USER, ServerFixture.USER),
                        Nfs3Xdr.dirop(fx.root, "n".repeat(256).getBytes()),
                        ReplyReader.of(Nfs3ResultsXdr::lookupResults),
                        ServerFixture.TIMEOUT);
        assertEquals(NfsStat3.NFS3ERR_NAMETOOLONG, tooLong.status());
    }

    @Test
    void aDirectorySwappedForALinkAfterItsHandleWasGivenOutLeadsNowhereOutside() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Path outside = outsideSecret();
        Path d = Files.createDirectories(fx.export.resolve("d"));
        Files.writeString(d.resolve("f"), "INSIDE-F");
        Nfs3Client nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
        FileHandle3 dh = nfs.lookup(fx.root, "d").handle();
        FileHandle3 fh = nfs.lookup(dh, "f").handle();
        // a local user (or a race) moves the directory away and puts a link to the outside in its place
        Files.move(d, fx.export.resolve("d.old"));
        Files.createSymbolicLink(fx.export.resolve("d"), outside);
        assertArrayEquals("INSIDE-F".getBytes(), read(nfs, fh), "the handle names the file, wherever it went");
        assertArrayEquals("INSIDE-F".getBytes(), read(nfs, nfs.lookup(dh, "f").handle()));
        assertEquals(FileType3.NF3LNK, nfs.lookup(fx.root, "d").attributes().type());
        assertEquals(
                NfsStat3.NFS3ERR_NOTDIR,
                status(() -> nfs.lookup(nfs.lookup(fx.root, "d").handle(), "f")));
        // the directory goes for good: its handles are stale, never resolved through the link
        Files.delete(fx.export.resolve("d.old/f"));
        Files.delete(fx.export.resolve("d.old"));
        assertEquals(NfsStat3.NFS3ERR_STALE, status(() -> read(nfs, fh)));
        assertEquals(NfsStat3.NFS3ERR_STALE, status(() -> nfs.lookup(dh, "secret.txt")));
    }

    @Test
    void whatIsMovedOutOfTheExportIsStaleAtOnceEvenWhileTheServerHasItOpen() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Path outside = outsideSecret();
        Path f = fx.export.resolve("f.txt");
        Files.writeString(f, "was-INSIDE");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-rw-rw-"));
        Nfs3Client nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
        FileHandle3 fh = nfs.lookup(fx.root, "f.txt").handle();
        // the WRITE and READ leave the file's descriptors in the server's open files (kept for OpenFiles.IDLE)
        nfs.write(fh, 0, MemorySegment.ofArray("WAS".getBytes()), StableHow.FILE_SYNC);
        assertArrayEquals("WAS-INSIDE".getBytes(), read(nfs, fh));
        // a local user moves it out of the export, on the same file system: knfsd's default no_subtree_check would
        // still serve it by its handle; this server resolves every call's handle inside the export
        Files.move(f, outside.resolve("moved.txt"));
        assertEquals(NfsStat3.NFS3ERR_STALE, status(() -> read(nfs, fh)));
        assertEquals(NfsStat3.NFS3ERR_STALE, status(() -> nfs.getattr(fh)));
        assertEquals(
                NfsStat3.NFS3ERR_STALE,
                status(() -> nfs.write(fh, 0, MemorySegment.ofArray("OUT".getBytes()), StableHow.FILE_SYNC)));
        assertEquals("WAS-INSIDE", Files.readString(outside.resolve("moved.txt")), "nothing written outside");
        // back inside under another name: once a LOOKUP finds it there, its old handle names it again
        Files.move(outside.resolve("moved.txt"), fx.export.resolve("back.txt"));
        nfs.lookup(fx.root, "back.txt");
        assertArrayEquals("WAS-INSIDE".getBytes(), read(nfs, fh));
        // a directory moved out takes its files' handles with it
        Path d = Files.createDirectories(fx.export.resolve("d"));
        Files.writeString(d.resolve("g.txt"), "IN-D");
        FileHandle3 gh = nfs.lookup(nfs.lookup(fx.root, "d").handle(), "g.txt").handle();
        assertArrayEquals("IN-D".getBytes(), read(nfs, gh));
        Files.move(d, outside.resolve("d"));
        assertEquals(NfsStat3.NFS3ERR_STALE, status(() -> read(nfs, gh)));
    }

    @Test
    void forgedAndForeignHandlesAreRefused() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Files.writeString(fx.export.resolve("f"), "x");
        Nfs3Client nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
        byte[] good = nfs.lookup(fx.root, "f").handle().bytes();
        for (int i = 0; i < good.length; i++) {
            byte[] flipped = good.clone();
            flipped[i] ^= 0x01;
            assertEquals(
                    NfsStat3.NFS3ERR_BADHANDLE,
                    status(() -> nfs.getattr(new FileHandle3(flipped))),
                    "byte " + i + " changed");
        }
        assertEquals(NfsStat3.NFS3ERR_BADHANDLE, status(() -> nfs.getattr(new FileHandle3(new byte[0]))));
        assertEquals(
                NfsStat3.NFS3ERR_BADHANDLE,
                status(() -> nfs.getattr(new FileHandle3(java.util.Arrays.copyOf(good, good.length - 1)))));
        assertEquals(NfsStat3.NFS3ERR_BADHANDLE, status(() -> nfs.getattr(new FileHandle3(new byte[64]))));

        // the same secret, another export: the MAC holds, the export id does not
        Path other = Files.createDirectories(dir.resolve("other"));
        try (NfsServer second = NfsServer.builder(other)
                        .state(fx.state)
                        .rpcbind(false)
                        .tcp(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0))
                        .mount(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0))
                        .start();
                TcpRpcTransport t = TcpRpcTransport.connectFromReservedPort(second.tcpAddress(), 1 << 20)) {
            Nfs3Client nfs2 = new Nfs3Client(
                    t, Nfs3Client.authSys("t", ServerFixture.USER, ServerFixture.USER), ServerFixture.TIMEOUT);
            assertEquals(NfsStat3.NFS3ERR_STALE, status(() -> nfs2.getattr(new FileHandle3(good))));
        }
    }

    @Test
    void rootIsSquashedByDefaultAndNotWhenAskedSo() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Path f = fx.export.resolve("private");
        Files.writeString(f, "mine");
        Files.setAttribute(f, "unix:uid", ServerFixture.USER);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        Files.setPosixFilePermissions(fx.export, PosixFilePermissions.fromString("rwxrwxrwx"));
        Nfs3Client root = fx.client(0, 0);
        FileHandle3 h = root.lookup(fx.root, "private").handle();
        assertEquals(NfsStat3.NFS3ERR_ACCES, status(() -> read(root, h)), "root is nobody here");
        assertEquals(NfsStat3.NFS3ERR_PERM, status(() -> root.setattr(h, Sattr3.mode(0666), null)));
        FileHandle3 made = root.create(fx.root, "by-root", 0644).handle();
        assertEquals(65534, Files.getAttribute(fx.export.resolve("by-root"), "unix:uid"));
        assertEquals(65534, Files.getAttribute(fx.export.resolve("by-root"), "unix:gid"));
        assertEquals(0, root.access(h, Nfs3.ACCESS_READ | Nfs3.ACCESS_MODIFY));
        fx.close();

        fx = ServerFixture.restart(fx.export, fx.state, ExportOptions.DEFAULTS.withRootSquash(false));
        Nfs3Client realRoot = fx.client(0, 0);
        assertArrayEquals("mine".getBytes(), read(realRoot, h), "the same handle, now read by root");
        realRoot.setattr(made, Sattr3.NONE.withOwner(4242, 4343), null);
        assertEquals(4242, Files.getAttribute(fx.export.resolve("by-root"), "unix:uid"));
    }

    @Test
    void permissionsAreCheckedForEveryCaller() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Nfs3Client owner = fx.client(ServerFixture.USER, ServerFixture.USER);
        Nfs3Client other = fx.client(ServerFixture.OTHER, ServerFixture.OTHER);
        FileHandle3 f = owner.create(fx.root, "f", 0600).handle();
        owner.write(f, 0, MemorySegment.ofArray("data".getBytes()), StableHow.FILE_SYNC);
        assertEquals(NfsStat3.NFS3ERR_ACCES, status(() -> read(other, f)));
        assertEquals(
                NfsStat3.NFS3ERR_ACCES,
                status(() -> other.write(f, 0, MemorySegment.ofArray(new byte[1]), StableHow.FILE_SYNC)));
        assertEquals(NfsStat3.NFS3ERR_ACCES, status(() -> other.create(fx.root, "g", 0644)), "0755 directory");
        assertEquals(NfsStat3.NFS3ERR_ACCES, status(() -> other.remove(fx.root, "f")));
        assertEquals(NfsStat3.NFS3ERR_PERM, status(() -> other.setattr(f, Sattr3.mode(0666), null)));
        assertEquals(
                NfsStat3.NFS3ERR_PERM,
                status(() -> owner.setattr(f, Sattr3.NONE.withOwner(ServerFixture.OTHER, null), null)),
                "only root gives files away");
        assertEquals(
                NfsStat3.NFS3ERR_PERM,
                status(() -> owner.setattr(f, Sattr3.NONE.withOwner(null, 3000), null)),
                "nor to a group one is not in");
        assertEquals(
                NfsStat3.NFS3ERR_ACCES,
                status(() ->
                        other.setattr(f, Sattr3.NONE.withTimes(Sattr3.SetTime.SERVER, Sattr3.SetTime.SERVER), null)));
        assertArrayEquals("data".getBytes(), Files.readAllBytes(fx.export.resolve("f")));

        // the owner writes a file it made read-only (open(O_CREAT|O_WRONLY, 0444) over NFS)
        FileHandle3 ro = owner.create(fx.root, "ro", 0444).handle();
        owner.write(ro, 0, MemorySegment.ofArray("ok".getBytes()), StableHow.FILE_SYNC);
        assertEquals("ok", Files.readString(fx.export.resolve("ro")));

        // a sticky, world-writable directory: each removes only its own
        FileHandle3 tmp = owner.mkdir(fx.root, "tmp", Sattr3.mode(01777)).handle();
        owner.create(tmp, "mine", 0644);
        other.create(tmp, "theirs", 0644);
        assertEquals(NfsStat3.NFS3ERR_ACCES, status(() -> other.remove(tmp, "mine")));
        assertEquals(NfsStat3.NFS3ERR_ACCES, status(() -> other.rename(tmp, "mine", tmp, "stolen")));
        other.remove(tmp, "theirs");
        assertTrue(Files.exists(fx.export.resolve("tmp/mine")));
        assertFalse(Files.exists(fx.export.resolve("tmp/theirs")));
    }

    @Test
    void namesAreByteStringsAndBadOnesAreRefused() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Nfs3Client nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
        TcpRpcTransport raw = fx.transport();
        byte[] latin1 = {'c', 'a', 'f', (byte) 0xe9}; // not UTF-8: stored and listed as these bytes
        var created = raw.call(
                Nfs3.PROGRAM,
                3,
                Nfs3.PROC_MKDIR,
                Nfs3Client.authSys("t", ServerFixture.USER, ServerFixture.USER),
                out -> {
                    Nfs3Xdr.dirop(fx.root, latin1).encodeTo(out);
                    Sattr3.mode(0755).encodeTo(out);
                },
                ReplyReader.of(Nfs3ResultsXdr::dirOpResults),
                ServerFixture.TIMEOUT);
        assertEquals(NfsStat3.NFS3_OK, created.status());
        assertEquals(List.of("caf\u00e9"), namesOnDisk(fx.export), "the bytes as sent");
        var looked = raw.call(
                Nfs3.PROGRAM,
                3,
                Nfs3.PROC_LOOKUP,
                Nfs3Client.authSys("t", ServerFixture.USER, ServerFixture.USER),
                Nfs3Xdr.dirop(fx.root, latin1),
                ReplyReader.of(Nfs3ResultsXdr::lookupResults),
                ServerFixture.TIMEOUT);
        assertEquals(created.value().handle(), looked.value().handle());
        for (byte[] bad : List.of("a/b".getBytes(), new byte[] {'a', 0, 'b'}, new byte[0])) {
            var r = raw.call(
                    Nfs3.PROGRAM,
                    3,
                    Nfs3.PROC_CREATE,
                    Nfs3Client.authSys("t", ServerFixture.USER, ServerFixture.USER),
                    out -> {
                        Nfs3Xdr.dirop(fx.root, bad).encodeTo(out);
                        out.putEnum(Nfs3.CREATE_UNCHECKED);
                        Sattr3.mode(0644).encodeTo(out);
                    },
                    ReplyReader.of(Nfs3ResultsXdr::dirOpResults),
                    ServerFixture.TIMEOUT);
            assertEquals(NfsStat3.NFS3ERR_ACCES, r.status(), new String(bad));
        }
        assertEquals(NfsStat3.NFS3ERR_EXIST, status(() -> nfs.mkdir(fx.root, "..", Sattr3.NONE)));
        assertEquals(NfsStat3.NFS3ERR_INVAL, status(() -> nfs.rename(fx.root, "..", fx.root, "x")));
        assertEquals(NfsStat3.NFS3ERR_NAMETOOLONG, status(() -> nfs.create(fx.root, "n".repeat(300), 0644)));
    }

    /** The names in {@code dir} as byte strings (one char per byte), read with getdents64 as the server does. */
    static List<String> namesOnDisk(Path dir) throws Exception {
        int fd = Posix.openat(Posix.AT_FDCWD, ExportFs.bytes(dir.toString()), Posix.O_RDONLY | Posix.O_DIRECTORY, 0);
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(8192, 8);
            java.util.List<String> names = new java.util.ArrayList<>();
            for (long n; (n = Posix.getdents64(fd, buf)) > 0; ) {
                for (long at = 0; at < n; ) {
                    Dirent e = Dirent.at(buf, at);
                    at += e.reclen();
                    if (!e.isDotOrDotDot()) {
                        names.add(e.name());
                    }
                }
            }
            return names;
        } finally {
            Posix.close(fd);
        }
    }

    @Test
    void aReadOnlyExportChangesNothing() throws Exception {
        Path export = Files.createDirectories(dir.resolve("export"));
        Files.writeString(export.resolve("f"), "keep");
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS.withReadOnly(true).withRootSquash(false));
        Nfs3Client nfs = fx.client(0, 0);
        FileHandle3 f = nfs.lookup(fx.root, "f").handle();
        assertEquals(
                NfsStat3.NFS3ERR_ROFS,
                status(() -> nfs.write(f, 0, MemorySegment.ofArray(new byte[1]), StableHow.FILE_SYNC)));
        assertEquals(NfsStat3.NFS3ERR_ROFS, status(() -> nfs.create(fx.root, "g", 0644)));
        assertEquals(NfsStat3.NFS3ERR_ROFS, status(() -> nfs.remove(fx.root, "f")));
        assertEquals(NfsStat3.NFS3ERR_ROFS, status(() -> nfs.setattr(f, Sattr3.mode(0), null)));
        assertEquals(0, nfs.access(f, Nfs3.ACCESS_MODIFY | Nfs3.ACCESS_EXTEND));
        assertArrayEquals("keep".getBytes(), read(nfs, f));
        assertEquals("keep", Files.readString(export.resolve("f")));
    }

    @Test
    void theStateDirectoryMayNotBeInsideTheExport() throws Exception {
        Path export = Files.createDirectories(dir.resolve("export"));
        var e = assertThrows(
                java.io.IOException.class,
                () -> NfsServer.builder(export)
                        .state(export.resolve(".state"))
                        .rpcbind(false)
                        .tcp(null)
                        .mount(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0))
                        .start());
        assertTrue(e.getMessage().contains("inside the export"), e.getMessage());
    }
}
