package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.panamardma.nfs.rpc.RdmaRpcTransport;
import org.panamardma.nfs.rpc.ReplyPlacement;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.TcpRpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.rpcrdma.RdmaProcedure;
import org.panamardma.rpcrdma.client.CallPlan;
import org.panamardma.rpcrdma.client.ChunkExposure;
import org.panamardma.rpcrdma.client.Negotiated;
import org.panamardma.rpcrdma.client.RpcRdmaClientOptions;
import org.panamardma.rpcrdma.client.RpcRdmaReply;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.xdr.XdrEncodable;

/**
 * The Java RPC-over-RDMA client ({@link RdmaRpcTransport}) against the guest's knfsd (svcrdma) on port 20049
 * (issue 6): NULL, GETATTR, LOOKUP; READ of 1 MiB placed by the server through the Write list; WRITE of 1 MiB
 * pulled by the server from Read chunks, then checked in the guest's file system; READDIR and READDIRPLUS of 1,000
 * entries returned in the Reply chunk (RDMA_NOMSG); a 1 KiB inline threshold with a Reply chunk forced on every call
 * so that even a 17-byte READ comes back by RDMA; 200 concurrent calls against knfsd's smaller credit grant; FSINFO
 * and {@code writeFully} of 1 MiB within its limits (checked in the guest), a {@code write} above wtmax refused
 * before it reaches knfsd; and the kernel log checked for svcrdma/rpcrdma errors at the end. The client runs on the
 * test device and connects to its peer's address (rxe0 to rxe1, siw0 to siw1), as the kernel client's reference test
 * does. MOUNT stays on TCP.
 * One subclass per device.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(300)
abstract class KnfsdRdmaDeviceTests {
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    /**
     * Bytes per WRITE: below knfsd's maximum payload here (its READs return at most 512 KiB). A WRITE whose Read
     * chunk exceeds that maximum made the 6.12 guest kernel oops in rxe_mr_copy (svcrdma reads the chunk into
     * pages it never allocated): a client must keep to the server's FSINFO wtmax, as Linux's does.
     */
    static final int WRITE_SIZE = 256 << 10;
    /**
     * The WRITE size at which the 6.12 guest kernel oopsed (1 MiB Read chunks). If knfsd's wtpref ever reaches it, the
     * writeFully test fails before sending rather than crash the guest.
     */
    static final long KNOWN_OOPS_WRITE = 1 << 20;

    static final OpaqueAuth ROOT = Nfs3Client.authSys("panama-rdma-rdma-test", 0, 0);
    static final RpcRdmaClientOptions OPTIONS =
            RpcRdmaClientOptions.DEFAULTS.withTimeouts(Duration.ofSeconds(90), TIMEOUT);

    private static KnfsdServer server;
    private static InetAddress serverIp;
    private static RdmaRpcTransport transport;
    private static Nfs3Client nfs;
    private static FileHandle3 root;
    private static int kernelLogBefore;

    /** knfsd, the root handle through MOUNT over TCP, and an RDMA connection from the device to its peer. */
    static synchronized Nfs3Client nfs(RdmaTestDevice device) throws Exception {
        if (nfs == null) {
            kernelLogBefore = KnfsdServer.kernelLog().size();
            server = KnfsdServer.start();
            assertEquals("ok", server.rdmaListener, "knfsd listens for RDMA on 20049");
            RdmaTestDevice peer = device.peer().orElseThrow(() -> new AssertionError(device + " has no peer"));
            serverIp = peer.ipv4().orElseThrow(() -> new AssertionError(peer + " has no IPv4 address"));
            int mountPort = KnfsdServer.mountdPort(serverIp.getHostAddress(), TIMEOUT);
            try (TcpRpcTransport mount = TcpRpcTransport.connect(serverIp.getHostAddress(), mountPort)) {
                root = server.mountRoot(mount, ROOT, TIMEOUT);
            }
            transport = RdmaRpcTransport.connect(new InetSocketAddress(serverIp, Nfs3.RDMA_PORT), OPTIONS);
            assertEquals(device.name(), transport.client().deviceName(), "the client runs on the test device");
            nfs = new Nfs3Client(transport, ROOT, TIMEOUT);
        }
        return nfs;
    }

    @AfterAll
    static void closeAndStop() throws Exception {
        if (transport != null) {
            transport.close();
        }
        transport = null;
        nfs = null;
        KnfsdServer.stop();
    }

    /** A call whose transport-level reply the test inspects. */
    record Called<T>(T value, RpcRdmaReply reply) {}

    static <T> Called<T> call(RdmaRpcTransport t, int procedure, XdrEncodable arguments, ReplyReader<T> results)
            throws Exception {
        RpcRdmaReply reply = RdmaRpcTransport.await(
                t.callAsync(Nfs3.PROGRAM, Nfs3.VERSION, procedure, ROOT, arguments, results, TIMEOUT), TIMEOUT);
        return new Called<>(t.decode(Nfs3.PROGRAM, Nfs3.VERSION, procedure, results, reply), reply);
    }

    static ReplyReader<Nfs3Result<DirList3>> readdirReader(int count, boolean plus) {
        return new ReplyReader<>() {
            @Override
            public Nfs3Result<DirList3> read(org.panamardma.xdr.XdrDecoder in, ReplyPlacement placement) {
                return plus ? Nfs3ResultsXdr.readdirplusResults(in) : Nfs3ResultsXdr.readdirResults(in);
            }

            @Override
            public long maxResultsSize() {
                return 4L + count;
            }
        };
    }

    static void assertPattern(MemorySegment data, long fileOffset) {
        for (long i = 0; i < data.byteSize(); i++) {
            byte b = data.get(ValueLayout.JAVA_BYTE, i);
            if (b != KnfsdServer.patternByte(fileOffset + i)) {
                throw new AssertionError("byte " + (fileOffset + i) + " is " + b + ", expected "
                        + KnfsdServer.patternByte(fileOffset + i));
            }
        }
    }

    @Test
    @Order(1)
    void negotiatesRfc8797ValuesThenNullGetattrAndLookupGoInline(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        Negotiated n = transport.client().negotiated();
        System.out.println(device + ": negotiated " + n);
        assertTrue(n.peers().present(), "knfsd sends RFC 8797 private data in its accept");
        assertTrue(n.sendThreshold() >= 1024 && n.receiveThreshold() >= 1024, n.toString());
        c.ping();
        Called<Nfs3Result<Fattr3>> getattr = call(
                transport, Nfs3.PROC_GETATTR, Nfs3Xdr.getattr(root), ReplyReader.of(Nfs3ResultsXdr::getattrResults));
        Fattr3 attributes = getattr.value().orThrow("GETATTR");
        assertEquals(FileType3.NF3DIR, attributes.type());
        assertEquals(((Number) Files.getAttribute(server.export, "unix:ino")).longValue(), attributes.fileid());
        assertEquals(CallPlan.Kind.INLINE, getattr.reply().callKind());
        assertEquals(RdmaProcedure.RDMA_MSG, getattr.reply().replyProcedure());
        assertFalse(getattr.reply().replyChunkOffered());

        LookupResult hello = c.lookup(root, KnfsdServer.SMALL_FILE);
        assertEquals(KnfsdServer.SMALL_CONTENT.length(), hello.attributes().size());
        NfsException e = assertThrows(NfsException.class, () -> c.lookup(root, "no-such-file"));
        assertEquals(NfsStat3.NFS3ERR_NOENT, e.status());
        Negotiated after = transport.client().negotiated();
        System.out.println(device + ": knfsd's credit grant " + after.creditGrant());
        assertTrue(after.creditGrant() >= 1);
    }

    @Test
    @Order(2)
    void readsTheMebibyteThroughTheWriteList(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        FileHandle3 file = c.lookup(root, KnfsdServer.PATTERN_FILE).handle();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(KnfsdServer.PATTERN_SIZE);
            long done = 0;
            int calls = 0;
            long start = System.nanoTime();
            while (done < KnfsdServer.PATTERN_SIZE) {
                MemorySegment part = buffer.asSlice(done);
                Called<Nfs3Result<ReadResult>> r = call(
                        transport,
                        Nfs3.PROC_READ,
                        Nfs3Xdr.read(file, done, (int) part.byteSize()),
                        Nfs3ResultsXdr.readResults(part));
                ReadResult result = r.value().orThrow("READ");
                calls++;
                assertTrue(r.reply().usedWriteList(), "READ data offered a Write chunk");
                RpcRdmaReply.Placement p = r.reply().placements().getFirst();
                assertEquals(result.count(), p.length(), "the server wrote exactly the data to the Write chunk");
                assertEquals(part.address(), result.data().address(), "placed in the caller's memory, no copy");
                assertTrue(result.count() > 0, "progress");
                done += result.count();
            }
            long nanos = System.nanoTime() - start;
            System.out.printf(
                    "%s: READ of %d bytes through the Write list in %d calls, %.1f ms%n",
                    device, done, calls, nanos / 1e6);
            assertPattern(buffer, 0);
        }
    }

    @Test
    @Order(3)
    void writesTheMebibyteThroughReadChunksAndTheGuestReadsIt(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        FileHandle3 file = c.lookup(root, KnfsdServer.WRITE_TARGET).handle();
        byte[] data = new byte[1 << 20];
        new Random(device.name().hashCode()).nextBytes(data);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment source = arena.allocate(data.length);
            MemorySegment.copy(data, 0, source, ValueLayout.JAVA_BYTE, 0, data.length);
            long done = 0;
            int calls = 0;
            while (done < data.length) {
                MemorySegment part = source.asSlice(done, Math.min(WRITE_SIZE, data.length - done));
                Called<Nfs3Result<WriteResult>> w = call(
                        transport,
                        Nfs3.PROC_WRITE,
                        Nfs3Xdr.write(file, done, StableHow.FILE_SYNC, part),
                        ReplyReader.of(Nfs3ResultsXdr::writeResults));
                WriteResult result = w.value().orThrow("WRITE");
                calls++;
                assertEquals(CallPlan.Kind.READ_CHUNKS, w.reply().callKind(), "WRITE data in a Read chunk");
                assertEquals(StableHow.FILE_SYNC, result.committed());
                assertTrue(result.count() > 0, "progress");
                done += result.count();
            }
            System.out.printf("%s: WRITE of %d bytes through Read chunks in %d calls%n", device, done, calls);
        }
        assertArrayEquals(
                data,
                Files.readAllBytes(server.export.resolve(KnfsdServer.WRITE_TARGET)),
                "the guest's file system holds what the client wrote");
    }

    @Test
    @Order(4)
    void readdirOfAThousandEntriesComesInTheReplyChunk(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        FileHandle3 dir = c.lookup(root, KnfsdServer.BIG_DIRECTORY).handle();
        Set<String> expected = IntStream.range(0, KnfsdServer.BIG_DIRECTORY_ENTRIES)
                .mapToObj(i -> String.format("entry-%03d", i))
                .collect(Collectors.toCollection(TreeSet::new));
        expected.add(".");
        expected.add("..");
        int count = 64 << 10;
        Called<Nfs3Result<DirList3>> all =
                call(transport, Nfs3.PROC_READDIR, Nfs3Xdr.readdir(dir, 0, 0, count), readdirReader(count, false));
        DirList3 list = all.value().orThrow("READDIR");
        assertTrue(all.reply().replyChunkOffered(), "64 KiB of results exceed the inline threshold");
        assertEquals(RdmaProcedure.RDMA_NOMSG, all.reply().replyProcedure(), "knfsd returns it in the Reply chunk");
        assertTrue(list.eof());
        assertEquals(
                expected, list.entries().stream().map(DirEntry3::name).collect(Collectors.toCollection(TreeSet::new)));
        assertEquals(expected.size(), list.entries().size());

        List<DirEntry3> plus = c.listDirectory(dir, 32 << 10, true);
        assertEquals(expected, plus.stream().map(DirEntry3::name).collect(Collectors.toCollection(TreeSet::new)));
        DirEntry3 some = plus.stream()
                .filter(e -> e.name().equals("entry-500"))
                .findFirst()
                .orElseThrow();
        assertNotNull(some.handle());
        assertEquals(c.lookup(dir, "entry-500").handle(), some.handle());
    }

    @Test
    @Order(5)
    void aTinyInlineThresholdWithAForcedReplyChunkMovesEvenSmallRepliesByRdma(RdmaTestDevice device) throws Exception {
        nfs(device);
        // announce 1 KiB both ways and offer a Reply chunk with every call: knfsd then returns every reply, even
        // a 17-byte READ's, by RDMA Write into the Reply chunk and sends RDMA_NOMSG. (Our receive buffers stay
        // 4 KiB: knfsd does not shrink its inline sends to what a client announces.)
        RpcRdmaClientOptions tiny =
                OPTIONS.withInline(1024, 1024).withChunkMinimums(0, 0).withAlwaysReplyChunk(true);
        try (RdmaRpcTransport t = RdmaRpcTransport.connect(new InetSocketAddress(serverIp, Nfs3.RDMA_PORT), tiny);
                Arena arena = Arena.ofShared()) {
            Negotiated n = t.client().negotiated();
            System.out.println(device + ": tiny client negotiated " + n);
            assertEquals(1024, n.sendThreshold());
            assertEquals(1024, n.receiveThreshold());
            Nfs3Client c = new Nfs3Client(t, ROOT, TIMEOUT);
            FileHandle3 hello = c.lookup(root, KnfsdServer.SMALL_FILE).handle();
            MemorySegment into = arena.allocate(4096);
            Called<Nfs3Result<ReadResult>> r =
                    call(t, Nfs3.PROC_READ, Nfs3Xdr.read(hello, 0, 4096), Nfs3ResultsXdr.readResults(into));
            ReadResult result = r.value().orThrow("READ");
            assertEquals(KnfsdServer.SMALL_CONTENT, new String(result.data().toArray(ValueLayout.JAVA_BYTE)));
            assertTrue(r.reply().replyChunkOffered());
            assertFalse(r.reply().usedWriteList(), "a Reply chunk, no Write list (as Linux xprtrdma)");
            assertEquals(RdmaProcedure.RDMA_NOMSG, r.reply().replyProcedure(), "the small reply came by RDMA Write");

            Called<Nfs3Result<Fattr3>> getattr =
                    call(t, Nfs3.PROC_GETATTR, Nfs3Xdr.getattr(root), ReplyReader.of(Nfs3ResultsXdr::getattrResults));
            assertEquals(FileType3.NF3DIR, getattr.value().orThrow("GETATTR").type());
            assertEquals(RdmaProcedure.RDMA_NOMSG, getattr.reply().replyProcedure());

            // the same READ through the Write list alone: a Write chunk even for 17 bytes, reply inline
            RpcRdmaClientOptions placeAll = OPTIONS.withInline(1024, 1024).withChunkMinimums(0, 0);
            try (RdmaRpcTransport p =
                    RdmaRpcTransport.connect(new InetSocketAddress(serverIp, Nfs3.RDMA_PORT), placeAll)) {
                MemorySegment small = arena.allocate(4096);
                Called<Nfs3Result<ReadResult>> placed =
                        call(p, Nfs3.PROC_READ, Nfs3Xdr.read(hello, 0, 4096), Nfs3ResultsXdr.readResults(small));
                assertEquals(
                        KnfsdServer.SMALL_CONTENT,
                        new String(placed.value().orThrow("READ").data().toArray(ValueLayout.JAVA_BYTE)));
                assertTrue(placed.reply().usedWriteList());
                assertEquals(
                        KnfsdServer.SMALL_CONTENT.length(),
                        placed.reply().placements().getFirst().length());
                assertEquals(RdmaProcedure.RDMA_MSG, placed.reply().replyProcedure());
            }

            // a 2,000-byte WRITE does not fit 1 KiB: its data goes in a Read chunk
            FileHandle3 target = c.lookup(root, KnfsdServer.WRITE_TARGET).handle();
            byte[] small = new byte[2000];
            new Random(5).nextBytes(small);
            Called<Nfs3Result<WriteResult>> w = call(
                    t,
                    Nfs3.PROC_WRITE,
                    Nfs3Xdr.write(target, 0, StableHow.FILE_SYNC, MemorySegment.ofArray(small)),
                    ReplyReader.of(Nfs3ResultsXdr::writeResults));
            assertEquals(2000, w.value().orThrow("WRITE").count());
            assertEquals(CallPlan.Kind.READ_CHUNKS, w.reply().callKind());
            byte[] stored = Files.readAllBytes(server.export.resolve(KnfsdServer.WRITE_TARGET));
            assertArrayEquals(small, java.util.Arrays.copyOf(stored, 2000));

            // the same WRITE with no item eligible for a Read chunk: a Long Call, RDMA_NOMSG with the whole call in
            // a position-zero Read chunk (RFC 8166 section 3.5.3)
            RpcRdmaClientOptions longCalls = OPTIONS.withInline(1024, 1024).withChunkMinimums(Integer.MAX_VALUE, 1024);
            try (RdmaRpcTransport l =
                    RdmaRpcTransport.connect(new InetSocketAddress(serverIp, Nfs3.RDMA_PORT), longCalls)) {
                byte[] other = new byte[3001];
                new Random(7).nextBytes(other);
                Called<Nfs3Result<WriteResult>> lw = call(
                        l,
                        Nfs3.PROC_WRITE,
                        Nfs3Xdr.write(target, 0, StableHow.FILE_SYNC, MemorySegment.ofArray(other)),
                        ReplyReader.of(Nfs3ResultsXdr::writeResults));
                assertEquals(3001, lw.value().orThrow("WRITE").count());
                assertEquals(CallPlan.Kind.POSITION_ZERO, lw.reply().callKind());
                assertArrayEquals(
                        other,
                        java.util.Arrays.copyOf(
                                Files.readAllBytes(server.export.resolve(KnfsdServer.WRITE_TARGET)), 3001));
            }
        }
    }

    @Test
    @Order(6)
    void moreConcurrentCallsThanTheCreditGrantAllComplete(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        FileHandle3 file = c.lookup(root, KnfsdServer.PATTERN_FILE).handle();
        int calls = 200;
        try (Arena arena = Arena.ofShared()) {
            List<CompletableFuture<RpcRdmaReply>> futures = new ArrayList<>();
            List<ReplyReader<Nfs3Result<ReadResult>>> readers = new ArrayList<>();
            int maxQueued = 0;
            List<Long> offsets = new ArrayList<>();
            // all GETATTRs first (no memory to register: submitted faster than knfsd answers), then the READs
            for (int k = 0; k < calls; k++) {
                int i = k < calls / 2 ? 2 * k : 2 * (k - calls / 2) + 1;
                if (i % 2 == 0) {
                    futures.add(transport.callAsync(
                            Nfs3.PROGRAM,
                            Nfs3.VERSION,
                            Nfs3.PROC_GETATTR,
                            ROOT,
                            Nfs3Xdr.getattr(file),
                            ReplyReader.of(Nfs3ResultsXdr::getattrResults),
                            TIMEOUT));
                    readers.add(null);
                } else {
                    ReplyReader<Nfs3Result<ReadResult>> reader = Nfs3ResultsXdr.readResults(arena.allocate(4096));
                    readers.add(reader);
                    futures.add(transport.callAsync(
                            Nfs3.PROGRAM,
                            Nfs3.VERSION,
                            Nfs3.PROC_READ,
                            ROOT,
                            Nfs3Xdr.read(file, 4096L * i, 4096),
                            reader,
                            TIMEOUT));
                }
                offsets.add(4096L * i);
                maxQueued = Math.max(maxQueued, transport.client().outstandingAndQueued()[1]);
            }
            int grant = transport.client().negotiated().creditGrant();
            for (int i = 0; i < calls; i++) {
                RpcRdmaReply reply = RdmaRpcTransport.await(futures.get(i), TIMEOUT);
                if (readers.get(i) == null) {
                    Fattr3 a = transport
                            .decode(
                                    Nfs3.PROGRAM,
                                    Nfs3.VERSION,
                                    Nfs3.PROC_GETATTR,
                                    ReplyReader.of(Nfs3ResultsXdr::getattrResults),
                                    reply)
                            .orThrow("GETATTR");
                    assertEquals(KnfsdServer.PATTERN_SIZE, a.size());
                } else {
                    ReadResult r = transport
                            .decode(Nfs3.PROGRAM, Nfs3.VERSION, Nfs3.PROC_READ, readers.get(i), reply)
                            .orThrow("READ");
                    assertEquals(4096, r.count());
                    assertPattern(r.data(), offsets.get(i));
                }
            }
            int peak = transport.client().peakOutstanding();
            System.out.printf(
                    "%s: %d concurrent calls, knfsd's grant %d, at most %d queued for credits, at most %d"
                            + " outstanding%n",
                    device, calls, grant, maxQueued, peak);
            assertTrue(peak <= grant, "never more outstanding (" + peak + ") than granted (" + grant + ")");
            assertTrue(grant < calls, "the test exceeds the grant (" + grant + ")");
            assertEquals(0, transport.client().outstandingAndQueued()[0], "every credit returned");
        }
    }

    @Test
    @Order(7)
    void knfsdRefusesABadVersionWithErrVersAndABadTypeWithErrChunk(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        org.panamardma.rpcrdma.client.RpcRdmaClient client = transport.client();
        java.util.concurrent.ExecutionException vers = assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> client.callWithHeaderWord(
                                1, 2, Nfs3.PROGRAM, Nfs3.VERSION, Nfs3.PROC_NULL, ROOT, XdrEncodable.VOID, TIMEOUT)
                        .get());
        System.out.println(device + ": version 2 header: " + vers.getCause());
        org.panamardma.rpcrdma.client.RpcRdmaException.VersionError v =
                assertInstanceOf(org.panamardma.rpcrdma.client.RpcRdmaException.VersionError.class, vers.getCause());
        assertEquals(1, v.low());
        assertEquals(1, v.high());
        java.util.concurrent.ExecutionException chunk = assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> client.callWithHeaderWord(
                                3,
                                2 /* RDMA_MSGP, gone in RFC 8166 */,
                                Nfs3.PROGRAM,
                                Nfs3.VERSION,
                                Nfs3.PROC_NULL,
                                ROOT,
                                XdrEncodable.VOID,
                                TIMEOUT)
                        .get());
        System.out.println(device + ": RDMA_MSGP header: " + chunk.getCause());
        assertInstanceOf(org.panamardma.rpcrdma.client.RpcRdmaException.ChunkError.class, chunk.getCause());
        c.ping(); // the connection survives both
        assertEquals(0, client.outstandingAndQueued()[0], "the refused calls returned their credits");
    }

    @Test
    @Order(8)
    void fsinfoGivesTheLimitsAndWriteFullyOfAMebibyteKeepsToThem(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        FsInfo info = c.fsinfo(root);
        System.out.println(device + ": FSINFO over RDMA " + info);
        assertTrue(info.rtmax() >= 4096 && info.wtmax() >= 4096, info.toString());
        assertTrue(info.rtpref() <= info.rtmax() && info.wtpref() <= info.wtmax(), info.toString());
        assertEquals(0x1b, info.properties(), "knfsd's NFS3_FSF_DEFAULT: LINK, SYMLINK, HOMOGENEOUS, CANSETTIME");
        // (knfsd 6.12 sends no obj_attributes with FSINFO: attributes() is null there, which RFC 1813 allows)
        assertEquals(info, c.limits().orElseThrow(), "the client keeps to the limits it learnt first");
        assertTrue(
                info.preferredWriteSize() < KNOWN_OOPS_WRITE,
                "knfsd's wtpref " + info.wtpref() + " reaches the"
                        + " WRITE size that oopsed the 6.12 guest kernel over RDMA: not sent");

        FileHandle3 file = c.lookup(root, KnfsdServer.WRITE_TARGET).handle();
        byte[] data = new byte[1 << 20];
        new Random(device.name().hashCode() + 8).nextBytes(data);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment source = arena.allocate(data.length);
            MemorySegment.copy(data, 0, source, ValueLayout.JAVA_BYTE, 0, data.length);
            WriteFullyResult w = c.writeFully(file, 0, source, StableHow.FILE_SYNC);
            System.out.printf(
                    "%s: writeFully of %d bytes over RDMA in %d WRITEs of at most %d%n",
                    device, w.count(), w.calls(), info.preferredWriteSize());
            assertEquals(data.length, w.count());
            assertEquals(
                    (data.length + info.preferredWriteSize() - 1) / info.preferredWriteSize(),
                    w.calls(),
                    "WRITEs of wtpref bytes, none short");
            assertEquals(StableHow.FILE_SYNC, w.committed());
        }
        assertArrayEquals(
                data,
                Files.readAllBytes(server.export.resolve(KnfsdServer.WRITE_TARGET)),
                "the guest's file system holds what writeFully wrote");

        FileHandle3 pattern = c.lookup(root, KnfsdServer.PATTERN_FILE).handle();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment buffer = arena.allocate(KnfsdServer.PATTERN_SIZE);
            ReadResult one = c.read(pattern, 0, buffer);
            assertTrue(one.count() > 0 && one.count() <= info.rtmax(), one.count() + " bytes");
            assertEquals(KnfsdServer.PATTERN_SIZE, c.readFully(pattern, 0, buffer), "READs of rtpref");
            assertPattern(buffer, 0);
        }
    }

    @Test
    @Order(9)
    void aWriteAboveWtmaxIsRefusedWithoutReachingKnfsd(RdmaTestDevice device) throws Exception {
        nfs(device);
        CountingTransport counting = new CountingTransport(transport);
        Nfs3Client fresh = new Nfs3Client(counting, ROOT, TIMEOUT); // learns its limits by itself
        FileHandle3 file = fresh.lookup(root, KnfsdServer.WRITE_TARGET).handle();
        byte[] before = Files.readAllBytes(server.export.resolve(KnfsdServer.WRITE_TARGET));
        long wtmax = nfs.limits().orElseThrow().wtmax();
        try (Arena arena = Arena.ofShared()) {
            MemorySegment tooMuch = arena.allocate(wtmax + 1);
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class, () -> fresh.write(file, 0, tooMuch, StableHow.FILE_SYNC));
            System.out.println(device + ": " + e.getMessage());
            assertTrue(e.getMessage().contains("wtmax"), e.getMessage());
        }
        assertEquals(List.of(Nfs3.PROC_LOOKUP, Nfs3.PROC_FSINFO), counting.procedures, "no WRITE was sent");
        assertArrayEquals(before, Files.readAllBytes(server.export.resolve(KnfsdServer.WRITE_TARGET)));
        fresh.ping(); // and the connection is fine
    }

    /**
     * Issue 25: the client with {@code ChunkExposure.MEMORY_WINDOWS} against knfsd on rxe - READ data placed through
     * windows bound over the caller's buffer, WRITE data read by knfsd through a window over the caller's source,
     * READDIR's Reply chunk through a window over a pool buffer; every byte checked, a window per chunk, and a second
     * round registers nothing. On siw, which has no windows, the mode is refused at connect, naming the device.
     */
    @Test
    @Order(10)
    void withMemoryWindowsKnfsdReadsWritesAndRepliesThroughThemOnRxe(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        InetSocketAddress at = new InetSocketAddress(serverIp, Nfs3.RDMA_PORT);
        RpcRdmaClientOptions windows = OPTIONS.withExposure(ChunkExposure.MEMORY_WINDOWS);
        if (device.transport() != org.panamardma.testbed.Transport.ROCE) {
            UnsupportedOperationException e =
                    assertThrows(UnsupportedOperationException.class, () -> RdmaRpcTransport.connect(at, windows));
            assertTrue(e.getMessage().contains(device.name()), e.getMessage());
            return;
        }
        FileHandle3 file = c.lookup(root, KnfsdServer.PATTERN_FILE).handle();
        FileHandle3 target = c.lookup(root, KnfsdServer.WRITE_TARGET).handle();
        FileHandle3 dir = c.lookup(root, KnfsdServer.BIG_DIRECTORY).handle();
        try (RdmaRpcTransport w = RdmaRpcTransport.connect(at, windows);
                Arena arena = Arena.ofShared()) {
            var client = w.client();
            assertEquals(ChunkExposure.MEMORY_WINDOWS, client.exposure());
            MemorySegment buffer = arena.allocate(KnfsdServer.PATTERN_SIZE);
            byte[] data = new byte[WRITE_SIZE];
            new Random(11).nextBytes(data);
            MemorySegment source = arena.allocate(WRITE_SIZE);
            MemorySegment.copy(data, 0, source, ValueLayout.JAVA_BYTE, 0, data.length);
            long registrations = 0;
            long binds = 0;
            for (int round = 0; round < 2; round++) {
                if (round == 1) {
                    registrations = client.registrations();
                    binds = client.windowBinds();
                }
                buffer.fill((byte) 0);
                for (long done = 0; done < KnfsdServer.PATTERN_SIZE; ) {
                    MemorySegment part = buffer.asSlice(done, Math.min(512 << 10, KnfsdServer.PATTERN_SIZE - done));
                    ReadResult r = call(
                                    w,
                                    Nfs3.PROC_READ,
                                    Nfs3Xdr.read(file, done, (int) part.byteSize()),
                                    Nfs3ResultsXdr.readResults(part))
                            .value()
                            .orThrow("READ");
                    assertEquals(part.address(), r.data().address(), "placed in the caller's memory");
                    done += r.count();
                }
                assertPattern(buffer, 0);
                Called<Nfs3Result<WriteResult>> wr = call(
                        w,
                        Nfs3.PROC_WRITE,
                        Nfs3Xdr.write(target, 0, StableHow.FILE_SYNC, source),
                        ReplyReader.of(Nfs3ResultsXdr::writeResults));
                assertEquals(WRITE_SIZE, wr.value().orThrow("WRITE").count());
                assertEquals(CallPlan.Kind.READ_CHUNKS, wr.reply().callKind());
                assertArrayEquals(
                        data,
                        java.util.Arrays.copyOf(
                                Files.readAllBytes(server.export.resolve(KnfsdServer.WRITE_TARGET)), WRITE_SIZE));
                int count = 64 << 10;
                Called<Nfs3Result<DirList3>> all =
                        call(w, Nfs3.PROC_READDIR, Nfs3Xdr.readdir(dir, 0, 0, count), readdirReader(count, false));
                assertEquals(RdmaProcedure.RDMA_NOMSG, all.reply().replyProcedure());
                assertEquals(
                        KnfsdServer.BIG_DIRECTORY_ENTRIES + 2,
                        all.value().orThrow("READDIR").entries().size());
            }
            System.out.printf(
                    "%s: with memory windows, %d registrations, %d window binds%n",
                    device, client.registrations(), client.windowBinds());
            assertEquals(registrations, client.registrations(), "the second round registered nothing");
            assertEquals(4, client.windowBinds() - binds, "a window per chunk: 2 READs, a WRITE, a READDIR");
        }
    }

    @Test
    @Order(90)
    void stoppingKnfsdFailsCallsWithConnectionLost(RdmaTestDevice device) throws Exception {
        nfs(device);
        RdmaRpcTransport t = RdmaRpcTransport.connect(new InetSocketAddress(serverIp, Nfs3.RDMA_PORT), OPTIONS);
        try {
            new Nfs3Client(t, ROOT, TIMEOUT).ping();
            KnfsdServer.stop(); // rpc.nfsd 0: svcrdma disconnects its clients
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            Throwable failure = null;
            while (failure == null && System.nanoTime() < deadline) {
                try {
                    RdmaRpcTransport.await(
                            t.callAsync(
                                    Nfs3.PROGRAM,
                                    Nfs3.VERSION,
                                    Nfs3.PROC_NULL,
                                    ROOT,
                                    XdrEncodable.VOID,
                                    ReplyReader.of(in -> Boolean.TRUE),
                                    Duration.ofSeconds(10)),
                            Duration.ofSeconds(10));
                    Thread.sleep(200); // knfsd may answer until its threads are gone
                } catch (java.io.IOException e) {
                    failure = e;
                }
            }
            System.out.println(device + ": after knfsd stopped: " + failure);
            assertTrue(
                    failure instanceof org.panamardma.rpcrdma.client.RpcRdmaException.ConnectionLost,
                    "a lost connection, not a timeout: " + failure);
        } finally {
            t.close();
        }
    }

    /** Kernel messages of nfsd, sunrpc and svcrdma that mean trouble. */
    private static final Pattern TROUBLE = Pattern.compile(
            "(?i)((nfsd|svcrdma|rpcrdma|xprtrdma|sunrpc|rpc).*(error|fail|warn|refus|drop|timed out))|call trace|bug:|oops");

    @Test
    @Order(100)
    void kernelLogShowsNoSvcrdmaOrRpcrdmaErrors(RdmaTestDevice device) throws Exception {
        nfs(device);
        List<String> log = KnfsdServer.kernelLog();
        List<String> during = log.subList(Math.min(kernelLogBefore, log.size()), log.size());
        during.stream().filter(l -> l.matches("(?i).*(nfsd|rpc|svc).*")).forEach(l -> System.out.println("  " + l));
        List<String> trouble =
                during.stream().filter(l -> TROUBLE.matcher(l).find()).toList();
        assertTrue(trouble.isEmpty(), "kernel log during the run: " + trouble);
        assertFalse(log.isEmpty(), "dmesg is readable");
    }
}
