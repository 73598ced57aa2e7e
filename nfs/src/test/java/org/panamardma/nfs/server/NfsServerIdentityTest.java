package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.FileType3;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.Nfs3Client;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.Sattr3;
import org.panamardma.nfs.StableHow;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.OpaqueAuth;

/**
 * The server acts as its caller (issue 25, item 1): the kernel makes the caller's files, checks the caller's
 * permissions (POSIX ACLs included) and clears set-id bits on other users' writes, and ids the kernel cannot
 * represent are squashed. These run as root, as a real server does (the fixture's files belong to users 1000 and
 * 2000).
 */
class NfsServerIdentityTest extends ServerFixtureTest {
    private static int mode(Path p) throws Exception {
        return (int) Files.getAttribute(p, "unix:mode") & 07777;
    }

    private static int uid(Path p) throws Exception {
        return (int) Files.getAttribute(p, "unix:uid");
    }

    private static int gid(Path p) throws Exception {
        return (int) Files.getAttribute(p, "unix:gid");
    }

    private Nfs3Client client(OpaqueAuth credential) throws Exception {
        return new Nfs3Client(fx.transport(), credential, ServerFixture.TIMEOUT);
    }

    private static OpaqueAuth authSys(int uid, int gid, Integer... groups) {
        return new AuthSysParms(1, "test", uid, gid, List.of(groups)).toOpaqueAuth();
    }

    private static byte[] read(Nfs3Client nfs, FileHandle3 h) throws Exception {
        MemorySegment into = MemorySegment.ofArray(new byte[4096]);
        var r = nfs.read(h, 0, into);
        return into.asSlice(0, r.count()).toArray(ValueLayout.JAVA_BYTE);
    }

    /** A directory of user 1000 that everyone may write (the setting), and its handle. */
    private FileHandle3 worldWritable(String name) throws Exception {
        Path pub = Files.createDirectories(fx.export.resolve(name));
        Files.setAttribute(pub, "unix:uid", ServerFixture.USER);
        Files.setAttribute(pub, "unix:gid", ServerFixture.USER);
        Files.setAttribute(pub, "unix:mode", 0777);
        return fx.client(ServerFixture.USER, ServerFixture.USER)
                .lookup(fx.root, name)
                .handle();
    }

    /**
     * The reproduction (item 1): AUTH_SYS uid and gid 0xFFFFFFFF, CREATE mode 06777 in a directory user 1000
     * made world-writable. On 5c5f9a1 this left uid 0, gid 0, mode 6777 on disk. Now the invalid ids are the
     * anonymous user, and the anonymous user (a shared identity) makes no set-id file, whatever the procedure.
     */
    @Test
    void uidMinusOneMakesNeitherARootOwnedNorASetIdFile() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        FileHandle3 pub = worldWritable("pub");
        Nfs3Client minusOne = client(authSys(-1, -1));
        Path pubDir = fx.export.resolve("pub");

        FileHandle3 made = minusOne.create(pub, "x", 06777).handle();
        Path x = pubDir.resolve("x");
        assertEquals(65534, uid(x), "owner");
        assertEquals(65534, gid(x), "group");
        assertEquals(0777, mode(x), "no set-id bit");

        minusOne.setattr(made, Sattr3.mode(06777), null);
        assertEquals(0777, mode(x), "SETATTR may not add them either");

        minusOne.mkdir(pub, "d", Sattr3.mode(06777));
        assertEquals(65534, uid(pubDir.resolve("d")));
        assertEquals(0, mode(pubDir.resolve("d")) & 06000, "a directory neither");
        minusOne.mknod(pub, "fifo", FileType3.NF3FIFO, Sattr3.mode(06666), 0, 0);
        assertEquals(0666, mode(pubDir.resolve("fifo")));
        minusOne.create(pub, "e", Nfs3.CREATE_GUARDED, Sattr3.mode(04755).withOwner(0, 0), 0);
        assertEquals(65534, uid(pubDir.resolve("e")), "the owner asked for is root's to give");
        assertEquals(0755, mode(pubDir.resolve("e")));

        // gid -1 with a valid uid, and -1 among the supplementary groups
        client(authSys(ServerFixture.OTHER, -1, -1, 0)).create(pub, "y", 02777);
        Path y = pubDir.resolve("y");
        assertEquals(ServerFixture.OTHER, uid(y));
        assertEquals(65534, gid(y), "gid -1 is the anonymous group");

        try (var files = Files.walk(fx.export)) {
            for (Path p : files.toList()) {
                assertTrue(uid(p) != 0 && gid(p) != 0, p + " belongs to root");
            }
        }
    }

    /**
     * A user's write or truncate of a set-id file it does not own clears the set-id bits, as a local write does:
     * the server writes as the caller, without CAP_FSETID. On 5c5f9a1 the server wrote as root and they survived.
     * Also through a descriptor the server kept open from an earlier WRITE, before the bits were set.
     */
    @Test
    void anotherUsersWriteOrTruncateClearsSetIdBits() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        FileHandle3 pub = worldWritable("pub");
        Nfs3Client owner = fx.client(ServerFixture.USER, ServerFixture.USER);
        Nfs3Client other = fx.client(ServerFixture.OTHER, ServerFixture.OTHER);
        FileHandle3 f = owner.create(pub, "tool", 06777).handle();
        Path tool = fx.export.resolve("pub/tool");
        assertEquals(06777, mode(tool), "its owner (not a shared identity) may make it set-id");

        other.write(f, 0, MemorySegment.ofArray("patched".getBytes()), StableHow.FILE_SYNC);
        assertEquals(0777, mode(tool), "a WRITE by another user clears both");
        assertEquals("patched", Files.readString(tool));

        // the same again through the descriptor the first WRITE left open (OpenFiles): the kernel clears the bits
        // at the write, by the writer's credentials, whenever the descriptor was opened
        owner.setattr(f, Sattr3.mode(06777), null);
        long reused = fx.server.exportFs().openFiles().reuses();
        other.write(f, 0, MemorySegment.ofArray("again".getBytes()), StableHow.UNSTABLE);
        assertEquals(
                reused + 1, fx.server.exportFs().openFiles().reuses(), "the cached descriptor was written through");
        assertEquals(0777, mode(tool), "a WRITE through a descriptor opened before the bits were set clears them too");

        owner.setattr(f, Sattr3.mode(06777), null);
        assertEquals(06777, mode(tool));
        other.setattr(f, Sattr3.NONE.withSize(0L), null);
        assertEquals(0777, mode(tool), "so does a truncate");
        assertEquals(0, Files.size(tool));
    }

    /** The kernel makes the file: the caller's, in the directory's group when the directory is set-group-id. */
    @Test
    void filesAreTheCallersInTheGroupTheKernelChooses() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Path shared = Files.createDirectories(fx.export.resolve("shared"));
        Files.setAttribute(shared, "unix:uid", ServerFixture.USER);
        Files.setAttribute(shared, "unix:gid", 3000);
        Files.setAttribute(shared, "unix:mode", 02777);
        Nfs3Client other = fx.client(ServerFixture.OTHER, ServerFixture.OTHER);
        FileHandle3 h = other.lookup(fx.root, "shared").handle();
        other.create(h, "f", 0640);
        other.mkdir(h, "d", Sattr3.mode(0750));
        other.symlink(h, "l", "f");
        for (String name : List.of("f", "d")) {
            assertEquals(ServerFixture.OTHER, uid(shared.resolve(name)), name);
            assertEquals(3000, gid(shared.resolve(name)), name);
        }
        assertEquals(ServerFixture.OTHER, (int)
                Files.getAttribute(shared.resolve("l"), "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS));
        assertEquals(0640, mode(shared.resolve("f")), "the mode as asked: the server's umask does not apply");
        assertEquals(02750, mode(shared.resolve("d")), "set-group-id inherited, as mkdir(2) does");
    }

    /**
     * Permissions are the kernel's, so POSIX ACLs count. On 5c5f9a1 the server computed them from st_mode, whose
     * group bits are the ACL's mask: user 2000, granted read by a named entry, was refused; denied by one, it read.
     */
    @Test
    void posixAclsDecide() throws Throwable {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Path granted = fx.export.resolve("granted");
        Path denied = fx.export.resolve("denied");
        Files.writeString(granted, "for 2000");
        Files.writeString(denied, "not for 2000");
        for (Path p : List.of(granted, denied)) {
            Files.setAttribute(p, "unix:uid", ServerFixture.USER);
            Files.setAttribute(p, "unix:gid", ServerFixture.USER);
        }
        PosixAcl.of(6, 0, 0).user(ServerFixture.OTHER, 4).mask(4).applyTo(granted); // mode shows 0640
        PosixAcl.of(6, 4, 4).user(ServerFixture.OTHER, 0).mask(4).applyTo(denied); // mode shows 0644
        assertEquals(0640, mode(granted));
        assertEquals(0644, mode(denied));
        Nfs3Client other = fx.client(ServerFixture.OTHER, ServerFixture.OTHER);
        FileHandle3 g = other.lookup(fx.root, "granted").handle();
        FileHandle3 d = other.lookup(fx.root, "denied").handle();
        assertArrayEquals("for 2000".getBytes(), read(other, g));
        assertEquals(Nfs3.ACCESS_READ, other.access(g, Nfs3.ACCESS_READ | Nfs3.ACCESS_MODIFY));
        assertEquals(NfsStat3.NFS3ERR_ACCES, status(() -> read(other, d)));
        assertEquals(0, other.access(d, Nfs3.ACCESS_READ));
        // a third user is "other" for both
        Nfs3Client third = fx.client(4000, 4000);
        assertEquals(NfsStat3.NFS3ERR_ACCES, status(() -> read(third, g)));
        assertArrayEquals("not for 2000".getBytes(), read(third, d));
        // a named group entry, through a supplementary group
        Path team = fx.export.resolve("team");
        Files.writeString(team, "team");
        Files.setAttribute(team, "unix:uid", ServerFixture.USER);
        PosixAcl.of(6, 0, 0).group(5000, 6).mask(6).applyTo(team);
        Nfs3Client member = client(authSys(4000, 4000, 5000));
        FileHandle3 t = member.lookup(fx.root, "team").handle();
        member.write(t, 0, MemorySegment.ofArray("TEAM".getBytes()), StableHow.FILE_SYNC);
        assertEquals("TEAM", Files.readString(team));
        assertEquals(NfsStat3.NFS3ERR_ACCES, status(() -> read(third, t)));
    }

    /**
     * One thread serves callers in turn: each call is its own caller, nothing of the last one carries over (a
     * leaked identity would show as a wrong owner, or a read of another's private file).
     */
    @Test
    void callsOnOneThreadTakeNothingFromTheCallBefore() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS, b -> b.threads(1));
        FileHandle3 pub = worldWritable("pub");
        Nfs3Client user = fx.client(ServerFixture.USER, ServerFixture.USER);
        Nfs3Client other = fx.client(ServerFixture.OTHER, ServerFixture.OTHER);
        Nfs3Client root = fx.client(0, 0);
        for (int i = 0; i < 20; i++) {
            Nfs3Client c = i % 3 == 0 ? user : i % 3 == 1 ? other : root;
            FileHandle3 f = c.create(pub, "f" + i, 0600).handle();
            c.write(f, 0, MemorySegment.ofArray(("by " + i).getBytes()), StableHow.UNSTABLE);
            int expected = i % 3 == 0 ? ServerFixture.USER : i % 3 == 1 ? ServerFixture.OTHER : 65534;
            assertEquals(expected, uid(fx.export.resolve("pub/f" + i)), "f" + i);
            assertEquals(expected, gid(fx.export.resolve("pub/f" + i)), "f" + i);
            Nfs3Client next = i % 3 == 0 ? other : user;
            assertEquals(NfsStat3.NFS3ERR_ACCES, status(() -> read(next, f)), "f" + i + " is private");
            assertEquals(0, next.access(f, Nfs3.ACCESS_READ));
        }
    }

    /**
     * Issue 26: a READ or a WRITE switches its thread's identity once each way (6 identity system calls each way for
     * this caller: its groups, its group and user and the two calls that check them, its capabilities). Its file
     * handle is resolved as the server before the thread takes on the caller ({@link ExportFs#prepare}); before,
     * the procedure's own resolution switched back to the server and then to the caller again: 24 calls per call.
     */
    @Test
    void aReadOrWriteSwitchesItsThreadsIdentityOnceEachWay() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Nfs3Client user = client(authSys(ServerFixture.USER, ServerFixture.USER, 5000));
        FileHandle3 f = user.create(fx.root, "f", 0644).handle();
        byte[] block = new byte[4096];
        user.write(f, 0, MemorySegment.ofArray(block), StableHow.UNSTABLE);
        read(user, f); // the open-file cache now holds the file for reading and for writing

        int rounds = 50;
        long before = ThreadCredentials.systemCalls();
        for (int i = 0; i < rounds; i++) {
            block[0] = (byte) i;
            user.write(f, 0, MemorySegment.ofArray(block), StableHow.UNSTABLE);
            assertEquals(i, read(user, f)[0], "the WRITE before it");
        }
        long made = ThreadCredentials.systemCalls() - before;
        long calls = 2L * rounds;
        assertTrue(made >= 12 * calls, made + " identity system calls: every call took on its caller and back");
        // a call the open-file cache missed (a descriptor closed as idle on a slow machine) switches once more
        assertTrue(made <= 12 * calls + 2 * 12, made + " identity system calls for " + calls + " calls, not 12 each");
        assertEquals(ServerFixture.USER, uid(fx.export.resolve("f")));
    }

    /** {@code all_squash}: every caller is the anonymous user, without its groups. */
    @Test
    void allSquashMakesEveryCallerAnonymous() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS.withAllSquash(true).withAnonymous(4242, 4343));
        FileHandle3 pub = worldWritable("pub");
        Path team = fx.export.resolve("team-only");
        Files.writeString(team, "x");
        Files.setAttribute(team, "unix:gid", 5000);
        Files.setAttribute(team, "unix:mode", 0040);
        Nfs3Client user = client(authSys(ServerFixture.USER, ServerFixture.USER, 5000));
        user.create(pub, "f", 04644);
        Path f = fx.export.resolve("pub/f");
        assertEquals(4242, uid(f));
        assertEquals(4343, gid(f));
        assertEquals(0644, mode(f), "the anonymous identity makes no set-id file");
        FileHandle3 t = user.lookup(fx.root, "team-only").handle();
        assertEquals(NfsStat3.NFS3ERR_ACCES, status(() -> read(user, t)), "its groups are gone");
    }
}
