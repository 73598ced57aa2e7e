package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.Nfs3Client;
import org.panamardma.nfs.Nfs3Result;
import org.panamardma.nfs.Nfs3ResultsXdr;
import org.panamardma.nfs.Nfs3Xdr;
import org.panamardma.nfs.NfsException;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.ReadResult;
import org.panamardma.nfs.StableHow;
import org.panamardma.nfs.WriteResult;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.TcpRpcTransport;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.tcp.RpcReplyException;
import org.panamardma.xdr.XdrEncodable;

/**
 * File handles across restarts of the server (and of directories moved meanwhile), the write verifier, and what a
 * client can make the server do or allocate with sizes of its choosing.
 */
class NfsServerRestartAndBoundsTest extends ServerFixtureTest {
    private static OpaqueAuth user() {
        return Nfs3Client.authSys("t", ServerFixture.USER, ServerFixture.USER);
    }

    private static byte[] readAll(Nfs3Client nfs, FileHandle3 h, int size) throws Exception {
        MemorySegment into = MemorySegment.ofArray(new byte[size]);
        long n = nfs.readFully(h, 0, into);
        return into.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void handlesStayValidAcrossARestartAndTheWriteVerifierChanges() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Path deep = Files.createDirectories(fx.export.resolve("a/b/c/d"));
        byte[] content = new byte[100_000];
        new Random(3).nextBytes(content);
        Files.write(deep.resolve("file"), content);
        Nfs3Client nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
        FileHandle3 h = fx.root;
        for (String name : List.of("a", "b", "c", "d")) {
            h = nfs.lookup(h, name).handle();
        }
        FileHandle3 dh = h;
        FileHandle3 fh = nfs.lookup(dh, "file").handle();
        FileHandle3 w = nfs.create(fx.root, "w", 0644).handle();
        WriteResult before = nfs.write(w, 0, MemorySegment.ofArray(new byte[10]), StableHow.UNSTABLE);
        assertEquals(before.verifier(), nfs.commit(w, 0, 0).verifier());
        Path export = fx.export;
        Path state = fx.state;
        FileHandle3 root = fx.root;
        fx.close();

        fx = ServerFixture.restart(export, state, ExportOptions.DEFAULTS);
        Nfs3Client again = fx.client(ServerFixture.USER, ServerFixture.USER);
        assertEquals(root, fx.root, "MNT gives the same root handle");
        assertArrayEquals(content, readAll(again, fh, content.length), "a handle of the last instance reads");
        assertEquals(fh, again.lookup(dh, "file").handle(), "and looks up the same handles");
        WriteResult after = again.write(w, 0, MemorySegment.ofArray(new byte[10]), StableHow.UNSTABLE);
        assertNotEquals(before.verifier(), after.verifier(), "a new instance: UNSTABLE data may be lost, resend");
    }

    @Test
    void aHandleFindsItsFileAfterItsDirectoryMovedWhileTheServerWasDown() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Files.createDirectories(fx.export.resolve("x/y"));
        Files.createDirectories(fx.export.resolve("z"));
        Files.writeString(fx.export.resolve("x/y/f"), "moved");
        Nfs3Client nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
        FileHandle3 f = nfs.lookup(
                        nfs.lookup(nfs.lookup(fx.root, "x").handle(), "y").handle(), "f")
                .handle();
        Path export = fx.export;
        Path state = fx.state;
        fx.close();
        Files.move(export.resolve("x/y"), export.resolve("z/y2")); // its hints (x's inode) no longer lead to it
        fx = ServerFixture.restart(export, state, ExportOptions.DEFAULTS);
        assertArrayEquals("moved".getBytes(), readAll(fx.client(ServerFixture.USER, ServerFixture.USER), f, 100));
    }

    @Test
    void aPathDeeperThanTheHintsStillResolvesAfterARestart() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Path p = fx.export;
        for (int i = 0; i < FileHandles.MAX_HINTS + 8; i++) {
            p = p.resolve("d" + i);
        }
        Files.createDirectories(p);
        Files.writeString(p.resolve("f"), "deep");
        Nfs3Client nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
        FileHandle3 h = fx.root;
        for (int i = 0; i < FileHandles.MAX_HINTS + 8; i++) {
            h = nfs.lookup(h, "d" + i).handle();
        }
        FileHandle3 f = nfs.lookup(h, "f").handle();
        assertTrue(f.bytes().length <= Nfs3.FHSIZE);
        Path export = fx.export;
        Path state = fx.state;
        fx.close();
        fx = ServerFixture.restart(export, state, ExportOptions.DEFAULTS);
        assertArrayEquals("deep".getBytes(), readAll(fx.client(ServerFixture.USER, ServerFixture.USER), f, 100));
    }

    @Test
    void aNewSecretOrAReusedInodeMakesOldHandlesInvalid() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Nfs3Client nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
        FileHandle3 old = nfs.create(fx.root, "gone", 0644).handle();
        long ino = (long) Files.getAttribute(fx.export.resolve("gone"), "unix:ino");
        nfs.remove(fx.root, "gone");
        // create files until the file system hands out the inode number again (ext4 and tmpfs do at once)
        boolean reused = false;
        for (int i = 0; i < 50 && !reused; i++) {
            nfs.create(fx.root, "new" + i, 0644);
            reused = (long) Files.getAttribute(fx.export.resolve("new" + i), "unix:ino") == ino;
        }
        System.out.println("inode " + ino + (reused ? " was reused" : " was not reused"));
        assertEquals(NfsStat3.NFS3ERR_STALE, status(() -> nfs.getattr(old)), "not the new file of that inode");
        FileHandle3 live = nfs.lookup(fx.root, "new0").handle();
        Path export = fx.export;
        Path state = fx.state;
        fx.close();
        Files.delete(state.resolve("secret"));
        fx = ServerFixture.restart(export, state, ExportOptions.DEFAULTS);
        Nfs3Client again = fx.client(ServerFixture.USER, ServerFixture.USER);
        assertEquals(NfsStat3.NFS3ERR_BADHANDLE, status(() -> again.getattr(live)), "signed with the old secret");
    }

    @Test
    void readCountsAreCappedAtRtmax() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        byte[] content = new byte[3 << 20];
        new Random(5).nextBytes(content);
        Files.write(fx.export.resolve("big"), content);
        TcpRpcTransport raw = fx.transport();
        Nfs3Client nfs = new Nfs3Client(raw, user(), ServerFixture.TIMEOUT);
        FileHandle3 h = nfs.lookup(fx.root, "big").handle();
        MemorySegment target = MemorySegment.ofArray(new byte[8 << 20]);
        Nfs3Result<ReadResult> r = raw.call(
                Nfs3.PROGRAM,
                3,
                Nfs3.PROC_READ,
                user(),
                Nfs3Xdr.read(h, 0, 8 << 20),
                Nfs3ResultsXdr.readResults(target),
                ServerFixture.TIMEOUT);
        assertEquals(Nfs3Server.MAX_IO, r.value().count(), "asked for 8 MiB, got rtmax");
        byte[] expected = new byte[Nfs3Server.MAX_IO];
        System.arraycopy(content, 0, expected, 0, expected.length);
        assertArrayEquals(expected, target.asSlice(0, Nfs3Server.MAX_IO).toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void writesBeyondWtmaxOrShortOfTheirCountAreRefusedAndWriteNothing() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        TcpRpcTransport raw = fx.transport();
        Nfs3Client nfs = new Nfs3Client(raw, user(), ServerFixture.TIMEOUT);
        FileHandle3 h = nfs.create(fx.root, "w", 0644).handle();
        byte[] tooMuch = new byte[Nfs3Server.MAX_IO + 1];
        Nfs3Result<WriteResult> r = raw.call(
                Nfs3.PROGRAM,
                3,
                Nfs3.PROC_WRITE,
                user(),
                Nfs3Xdr.write(h, 0, StableHow.FILE_SYNC, MemorySegment.ofArray(tooMuch)),
                ReplyReader.of(Nfs3ResultsXdr::writeResults),
                ServerFixture.TIMEOUT);
        assertEquals(NfsStat3.NFS3ERR_INVAL, r.status());
        XdrEncodable countBeyondData = out -> {
            h.encodeTo(out);
            out.putUnsignedHyper(0).putUnsignedInt(1000).putEnum(StableHow.FILE_SYNC.code());
            out.putOpaque(new byte[10], 100);
        };
        assertEquals(
                NfsStat3.NFS3ERR_INVAL,
                raw.call(
                                Nfs3.PROGRAM,
                                3,
                                Nfs3.PROC_WRITE,
                                user(),
                                countBeyondData,
                                ReplyReader.of(Nfs3ResultsXdr::writeResults),
                                ServerFixture.TIMEOUT)
                        .status());
        assertEquals(0, Files.size(fx.export.resolve("w")));
    }

    @Test
    void argumentsThatDoNotDecodeAreGarbageArgs() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        TcpRpcTransport raw = fx.transport();
        record Garbage(int procedure, XdrEncodable arguments) {}
        List<Garbage> garbage = List.of(
                new Garbage(Nfs3.PROC_LOOKUP, out -> fx.root.encodeTo(out)), // no name
                new Garbage(Nfs3.PROC_LOOKUP, out -> {
                    fx.root.encodeTo(out);
                    out.putInt(1 << 30); // a name of 1 GiB, of which nothing follows: refused before allocating
                }),
                new Garbage(Nfs3.PROC_GETATTR, out -> out.putInt(68).putFixedOpaque(new byte[68])), // > NFS3_FHSIZE
                new Garbage(Nfs3.PROC_CREATE, out -> {
                    fx.root.encodeTo(out);
                    out.putString("x", 255).putInt(99); // no such createmode3
                }),
                new Garbage(Nfs3.PROC_WRITE, out -> {
                    fx.root.encodeTo(out);
                    out.putHyper(0).putInt(10).putInt(7); // no such stable_how
                }));
        for (Garbage g : garbage) {
            RpcReplyException e = assertThrows(
                    RpcReplyException.class,
                    () -> raw.call(
                            Nfs3.PROGRAM,
                            3,
                            g.procedure(),
                            user(),
                            g.arguments(),
                            ReplyReader.of(in -> in.getInt()),
                            ServerFixture.TIMEOUT));
            assertEquals(AcceptStat.GARBAGE_ARGS, e.acceptStat(), "procedure " + g.procedure());
        }
        assertEquals(
                ServerFixture.USER,
                new Nfs3Client(raw, user(), ServerFixture.TIMEOUT)
                        .getattr(fx.root)
                        .uid(),
                "the connection goes on");
    }

    @Test
    void pathsLongerThanPathMaxAreRefusedBeforeAnythingIsMade() throws Exception {
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        Nfs3Client nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
        FileHandle3 h = fx.root;
        int depth = 0;
        String name = "d".repeat(254); // 255 bytes a level with the slash: the 16th level passes 4095
        while (true) {
            FileHandle3 parent = h;
            try {
                h = nfs.mkdir(parent, name, org.panamardma.nfs.Sattr3.mode(0755))
                        .handle();
                depth++;
            } catch (NfsException e) {
                assertEquals(NfsStat3.NFS3ERR_NAMETOOLONG, e.status());
                assertEquals(NfsStat3.NFS3ERR_NAMETOOLONG, status(() -> nfs.create(parent, name, 0644)));
                assertEquals(NfsStat3.NFS3ERR_NAMETOOLONG, status(() -> nfs.lookup(parent, name)));
                break;
            }
        }
        assertEquals(ExportFs.MAX_PATH / 255, depth, "levels made");
        FileHandle3 last = h;
        assertEquals(ServerFixture.USER, nfs.getattr(last).uid(), "the deepest made is served");
        assertEquals(2, nfs.listDirectory(last, 4096, false).size(), "only . and .. in it");
        // find(1) walks with openat, so it sees below PATH_MAX from the root
        Process find = new ProcessBuilder("find", fx.export.toString(), "-mindepth", String.valueOf(depth))
                .redirectErrorStream(true)
                .start();
        List<String> found =
                new String(find.getInputStream().readAllBytes()).lines().toList();
        assertEquals(0, find.waitFor());
        assertEquals(1, found.size(), "one entry at the deepest level, nothing below: " + found.size());
        // rm(1) removes what Java's paths cannot name (JUnit's TempDir would fail on it)
        assertEquals(
                0,
                new ProcessBuilder("rm", "-rf", fx.export.resolve(name).toString())
                        .start()
                        .waitFor());
    }

    @Test
    void manyConcurrentReadsShareTheFixedBufferPool() throws Exception {
        // 8 small and 4 large buffers, at most 2 of each to one client (all of these connections are 127.0.0.1);
        // the calls wait as long as their client does (this test is about sharing, not about the deadline)
        fx = ServerFixture.start(
                dir, ExportOptions.DEFAULTS, b -> b.waits(ServerFixture.TIMEOUT, ServerFixture.TIMEOUT));
        byte[] content = new byte[4 << 20];
        new Random(9).nextBytes(content);
        Files.write(fx.export.resolve("f"), content);
        FileHandle3 h = fx.client(ServerFixture.USER, ServerFixture.USER)
                .lookup(fx.root, "f")
                .handle();
        List<Nfs3Client> clients = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            clients.add(fx.client(ServerFixture.USER, ServerFixture.USER));
        }
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<byte[]>> reads = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                Nfs3Client c = clients.get(i % clients.size());
                reads.add(pool.submit(() -> readAll(c, h, content.length)));
            }
            for (Future<byte[]> f : reads) {
                assertArrayEquals(content, f.get());
            }
        }
    }
}
