package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.panamardma.nfs.CommitResult;
import org.panamardma.nfs.DirEntry3;
import org.panamardma.nfs.DirList3;
import org.panamardma.nfs.DirOpResult;
import org.panamardma.nfs.Fattr3;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.FileType3;
import org.panamardma.nfs.FsInfo;
import org.panamardma.nfs.FsStat;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.Nfs3Client;
import org.panamardma.nfs.NfsException;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.NfsTime3;
import org.panamardma.nfs.PathConf;
import org.panamardma.nfs.ReadResult;
import org.panamardma.nfs.Sattr3;
import org.panamardma.nfs.StableHow;
import org.panamardma.nfs.WriteResult;

/**
 * Every procedure of the server over TCP on loopback, driven by the project's own client, checked against what the
 * exported directory holds afterwards (the server's answers alone could agree with a wrong server).
 */
class NfsServerProceduresTest {
    @TempDir
    Path dir;

    ServerFixture fx;
    Nfs3Client nfs;

    @BeforeEach
    void start() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
    }

    @AfterEach
    void stop() {
        fx.close();
    }

    private static NfsStat3 status(org.junit.jupiter.api.function.Executable e) {
        return assertThrows(NfsException.class, e).status();
    }

    @Test
    void nullGetattrAndTheRootsAttributes() throws Exception {
        nfs.ping();
        Fattr3 a = nfs.getattr(fx.root);
        assertEquals(FileType3.NF3DIR, a.type());
        assertEquals(ServerFixture.USER, a.uid());
        assertEquals(Files.getAttribute(fx.export, "unix:ino"), a.fileid());
        assertEquals(Integer.parseInt("755", 8), a.mode() & 0777);
    }

    @Test
    void createWriteReadCommitMatchTheFileOnDisk() throws Exception {
        DirOpResult created = nfs.create(fx.root, "data.bin", 0640);
        assertNotNull(created.handle());
        Path file = fx.export.resolve("data.bin");
        assertEquals(ServerFixture.USER, Files.getAttribute(file, "unix:uid"), "given to the creator");
        assertEquals(
                "rw-r-----",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(file)),
                "the mode exactly as asked, no umask");
        byte[] data = new byte[3 * 1024 * 1024 + 12345]; // not a multiple of 4 KiB, several WRITEs of 1 MiB
        new Random(7).nextBytes(data);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment from = arena.allocate(data.length);
            from.copyFrom(MemorySegment.ofArray(data));
            var w = nfs.writeFully(created.handle(), 0, from, StableHow.UNSTABLE);
            assertEquals(data.length, w.count());
            assertEquals(StableHow.UNSTABLE, w.committed());
            CommitResult c = nfs.commit(created.handle(), 0, 0);
            assertEquals(w.verifier(), c.verifier(), "same server instance, same verifier");
            assertEquals(ServerFixture.sha256(data), ServerFixture.sha256(Files.readAllBytes(file)));
            MemorySegment into = arena.allocate(data.length + 100);
            assertEquals(data.length, nfs.readFully(created.handle(), 0, into));
            assertArrayEquals(data, into.asSlice(0, data.length).toArray(ValueLayout.JAVA_BYTE));
        }
        assertEquals(data.length, nfs.getattr(created.handle()).size());
    }

    @Test
    void readAtAndBeyondTheEndSaysEof() throws Exception {
        Files.write(fx.export.resolve("small"), new byte[] {1, 2, 3, 4, 5});
        FileHandle3 h = nfs.lookup(fx.root, "small").handle();
        try (Arena arena = Arena.ofConfined()) {
            ReadResult r = nfs.read(h, 3, arena.allocate(100));
            assertEquals(2, r.count());
            assertTrue(r.eof());
            assertArrayEquals(new byte[] {4, 5}, r.data().toArray(ValueLayout.JAVA_BYTE));
            ReadResult beyond = nfs.read(h, 1000, arena.allocate(100));
            assertEquals(0, beyond.count());
            assertTrue(beyond.eof());
            ReadResult middle = nfs.read(h, 0, arena.allocate(2));
            assertEquals(2, middle.count());
            assertFalse(middle.eof());
        }
    }

    @Test
    void fileSyncWriteAndUncheckedCreateTruncates() throws Exception {
        FileHandle3 h = nfs.create(fx.root, "f", 0644).handle();
        WriteResult w = nfs.write(h, 10, MemorySegment.ofArray("hello".getBytes()), StableHow.FILE_SYNC);
        assertEquals(StableHow.FILE_SYNC, w.committed());
        byte[] expected = new byte[15];
        System.arraycopy("hello".getBytes(), 0, expected, 10, 5);
        assertArrayEquals(expected, Files.readAllBytes(fx.export.resolve("f")));
        DirOpResult again = nfs.create(
                fx.root, "f", Nfs3.CREATE_UNCHECKED, Sattr3.mode(0644).withSize(0L), 0);
        assertEquals(h, again.handle(), "UNCHECKED on an existing file: the same file");
        assertEquals(0, Files.size(fx.export.resolve("f")));
        assertEquals(
                NfsStat3.NFS3ERR_EXIST,
                status(() -> nfs.create(fx.root, "f", Nfs3.CREATE_GUARDED, Sattr3.mode(0644), 0)));
    }

    @Test
    void exclusiveCreateIsIdempotentForItsVerifierOnly() throws Exception {
        DirOpResult first = nfs.create(fx.root, "x", Nfs3.CREATE_EXCLUSIVE, Sattr3.NONE, 0x1122334455667788L);
        DirOpResult retransmitted = nfs.create(fx.root, "x", Nfs3.CREATE_EXCLUSIVE, Sattr3.NONE, 0x1122334455667788L);
        assertEquals(first.handle(), retransmitted.handle());
        assertEquals(
                NfsStat3.NFS3ERR_EXIST,
                status(() -> nfs.create(fx.root, "x", Nfs3.CREATE_EXCLUSIVE, Sattr3.NONE, 0x1122334455667789L)));
        // the client then sets the real attributes, as Linux does after an exclusive create
        nfs.setattr(first.handle(), Sattr3.mode(0600).withTimes(Sattr3.SetTime.SERVER, Sattr3.SetTime.SERVER), null);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(fx.export.resolve("x"))));
    }

    @Test
    void setattrChangesModeSizeAndTimesAndHonoursTheGuard() throws Exception {
        Files.write(fx.export.resolve("s"), new byte[1000]);
        Files.setAttribute(fx.export.resolve("s"), "unix:uid", ServerFixture.USER);
        FileHandle3 h = nfs.lookup(fx.root, "s").handle();
        Fattr3 before = nfs.getattr(h);
        nfs.setattr(
                h,
                Sattr3.mode(0604)
                        .withSize(10L)
                        .withTimes(
                                Sattr3.SetTime.client(new NfsTime3(1000, 5)),
                                Sattr3.SetTime.client(new NfsTime3(2000, 7))),
                before.ctime());
        Path p = fx.export.resolve("s");
        assertEquals(10, Files.size(p));
        assertEquals("rw----r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
        assertEquals(2000, Files.getLastModifiedTime(p).toMillis() / 1000);
        Fattr3 after = nfs.getattr(h);
        assertEquals(new NfsTime3(1000, 5), after.atime());
        assertEquals(new NfsTime3(2000, 7), after.mtime());
        assertEquals(
                NfsStat3.NFS3ERR_NOT_SYNC,
                status(() -> nfs.setattr(h, Sattr3.mode(0600), before.ctime())),
                "the guard's ctime is no longer the file's");
        assertEquals("rw----r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)));
    }

    @Test
    void accessAnswersWhatTheModeAllows() throws Exception {
        Path p = fx.export.resolve("a");
        Files.write(p, new byte[1]);
        Files.setAttribute(p, "unix:uid", ServerFixture.USER);
        Files.setAttribute(p, "unix:gid", 3000);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r-----"));
        FileHandle3 h = nfs.lookup(fx.root, "a").handle();
        int all = Nfs3.ACCESS_READ | Nfs3.ACCESS_MODIFY | Nfs3.ACCESS_EXTEND | Nfs3.ACCESS_EXECUTE;
        assertEquals(Nfs3.ACCESS_READ | Nfs3.ACCESS_MODIFY | Nfs3.ACCESS_EXTEND, nfs.access(h, all));
        assertEquals(Nfs3.ACCESS_READ, fx.client(ServerFixture.OTHER, 3000).access(h, all), "group: read");
        assertEquals(0, fx.client(ServerFixture.OTHER, ServerFixture.OTHER).access(h, all), "others: nothing");
        int dirAll = Nfs3.ACCESS_READ | Nfs3.ACCESS_LOOKUP | Nfs3.ACCESS_MODIFY | Nfs3.ACCESS_DELETE;
        assertEquals(dirAll, nfs.access(fx.root, dirAll));
        assertEquals(
                Nfs3.ACCESS_READ | Nfs3.ACCESS_LOOKUP,
                fx.client(ServerFixture.OTHER, ServerFixture.OTHER).access(fx.root, dirAll));
    }

    @Test
    void mkdirRmdirRemoveAndRename() throws Exception {
        FileHandle3 d = nfs.mkdir(fx.root, "d", Sattr3.mode(0750)).handle();
        assertTrue(Files.isDirectory(fx.export.resolve("d")));
        assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(fx.export.resolve("d"))));
        FileHandle3 f = nfs.create(d, "f", 0644).handle();
        assertEquals(NfsStat3.NFS3ERR_NOTEMPTY, status(() -> nfs.rmdir(fx.root, "d")));
        assertEquals(NfsStat3.NFS3ERR_EXIST, status(() -> nfs.mkdir(fx.root, "d", Sattr3.NONE)));
        nfs.rename(d, "f", fx.root, "g");
        assertFalse(Files.exists(fx.export.resolve("d/f")));
        assertTrue(Files.exists(fx.export.resolve("g")));
        assertEquals(FileType3.NF3REG, nfs.getattr(f).type(), "the handle follows the file across RENAME");
        nfs.rename(fx.root, "d", fx.root, "e");
        assertTrue(Files.isDirectory(fx.export.resolve("e")));
        assertEquals(FileType3.NF3DIR, nfs.getattr(d).type(), "and a directory's too");
        nfs.rmdir(fx.root, "e");
        nfs.remove(fx.root, "g");
        try (var left = Files.list(fx.export)) {
            assertEquals(Set.of(), left.map(p -> p.getFileName().toString()).collect(Collectors.toSet()));
        }
        assertEquals(NfsStat3.NFS3ERR_STALE, status(() -> nfs.getattr(f)));
        assertEquals(NfsStat3.NFS3ERR_NOENT, status(() -> nfs.remove(fx.root, "g")));
        assertEquals(NfsStat3.NFS3ERR_NOENT, status(() -> nfs.lookup(fx.root, "g")));
    }

    @Test
    void symlinkReadlinkLinkAndMknod() throws Exception {
        DirOpResult link = nfs.symlink(fx.root, "l", "../../etc/passwd");
        assertEquals(FileType3.NF3LNK, link.attributes().type());
        assertEquals(
                "../../etc/passwd",
                Files.readSymbolicLink(fx.export.resolve("l")).toString());
        assertEquals("../../etc/passwd", nfs.readlink(link.handle()));
        assertEquals(
                ServerFixture.USER, Files.getAttribute(fx.export.resolve("l"), "unix:uid", LinkOption.NOFOLLOW_LINKS));

        FileHandle3 f = nfs.create(fx.root, "f", 0644).handle();
        var linked = nfs.link(f, fx.root, "hard");
        assertEquals(2, linked.file().nlink());
        assertEquals(
                Files.getAttribute(fx.export.resolve("f"), "unix:ino"),
                Files.getAttribute(fx.export.resolve("hard"), "unix:ino"));
        assertEquals(NfsStat3.NFS3ERR_ISDIR, status(() -> nfs.link(fx.root, fx.root, "rootlink")));

        DirOpResult fifo = nfs.mknod(fx.root, "fifo", FileType3.NF3FIFO, Sattr3.mode(0600), 0, 0);
        assertEquals(FileType3.NF3FIFO, fifo.attributes().type());
        assertTrue(Files.getAttribute(fx.export.resolve("fifo"), "unix:mode") instanceof Integer m
                && (m & Posix.S_IFMT) == Posix.S_IFIFO);
        assertEquals(
                NfsStat3.NFS3ERR_PERM,
                status(() -> nfs.mknod(fx.root, "dev", FileType3.NF3CHR, Sattr3.mode(0600), 1, 3)),
                "device files: root only");
        assertEquals(
                NfsStat3.NFS3ERR_INVAL,
                status(() -> nfs.read(fifo.handle(), 0, MemorySegment.ofArray(new byte[10]))),
                "READ of a FIFO is refused, never opened");
    }

    @Test
    void fsstatFsinfoPathconf() throws Exception {
        FsStat s = nfs.fsstat(fx.root);
        assertTrue(s.totalBytes() > 0 && s.freeBytes() <= s.totalBytes(), s.toString());
        FsInfo i = nfs.fsinfo(fx.root);
        assertEquals(Nfs3Server.MAX_IO, i.rtmax());
        assertEquals(Nfs3Server.MAX_IO, i.wtmax());
        assertTrue(i.has(FsInfo.FSF3_SYMLINK) && i.has(FsInfo.FSF3_LINK) && i.has(FsInfo.FSF3_CANSETTIME));
        PathConf p = nfs.pathconf(fx.root);
        assertEquals(255, p.nameMax());
        assertTrue(p.noTrunc() && p.casePreserving() && !p.caseInsensitive());
    }

    @Test
    void readdirOfALargeDirectoryInBatchesWithCookies() throws Exception {
        Path big = Files.createDirectory(fx.export.resolve("big"));
        Set<String> names = new HashSet<>();
        for (int i = 0; i < 3000; i++) {
            String name = "entry-" + i + "-" + "x".repeat(i % 40);
            Files.createFile(big.resolve(name));
            names.add(name);
        }
        FileHandle3 h = nfs.lookup(fx.root, "big").handle();
        for (boolean plus : new boolean[] {false, true}) {
            List<DirEntry3> all = nfs.listDirectory(h, 4096, plus);
            Set<String> seen = all.stream()
                    .map(DirEntry3::name)
                    .filter(n -> !n.equals(".") && !n.equals(".."))
                    .collect(Collectors.toSet());
            assertEquals(names, seen, plus ? "READDIRPLUS" : "READDIR");
            assertEquals(3002, all.size(), "each entry once, with . and ..");
            if (plus) {
                DirEntry3 e = all.stream()
                        .filter(x -> x.name().equals("entry-5-xxxxx"))
                        .findFirst()
                        .orElseThrow();
                assertEquals(e.fileid(), nfs.getattr(e.handle()).fileid(), "READDIRPLUS handles work");
                assertEquals(Files.getAttribute(big.resolve("entry-5-xxxxx"), "unix:ino"), e.fileid());
            }
        }
        DirList3 first = nfs.readdir(h, 0, 0, 4096);
        assertFalse(first.eof());
        long cookie = first.entries().getLast().cookie();
        DirList3 next = nfs.readdir(h, cookie, first.cookieVerifier(), 4096);
        assertNotEquals(
                first.entries().getFirst().name(), next.entries().getFirst().name());
        assertEquals(
                NfsStat3.NFS3ERR_BAD_COOKIE,
                status(() -> nfs.readdir(h, cookie, first.cookieVerifier() ^ 1, 4096)),
                "a verifier not the directory's");
        assertEquals(NfsStat3.NFS3ERR_TOOSMALL, status(() -> nfs.readdir(h, 0, 0, 100)), "no room for one entry");
        DirList3 huge = nfs.readdir(h, 0, 0, Integer.MAX_VALUE);
        assertTrue(huge.entries().size() < 3002, "a reply of at most " + Nfs3Server.MAX_DIR_REPLY + " bytes");
        assertFalse(huge.eof());
    }

    @Test
    void readdirplusOfTheRootGivesNoHandleAbove() throws Exception {
        DirList3 list = nfs.readdirplus(fx.root, 0, 0, 8192, 8192);
        DirEntry3 dotdot = list.entries().stream()
                .filter(e -> e.name().equals(".."))
                .findFirst()
                .orElseThrow();
        assertEquals(fx.root, dotdot.handle(), ".. of the export's root is the root");
        assertEquals(fx.root, nfs.lookup(fx.root, "..").handle());
        assertNull(list.entries().stream()
                .filter(e -> e.name().equals("nothing"))
                .findFirst()
                .orElse(null));
    }
}
