package org.panamardma.nfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.panamardma.nfs.rpc.TcpRpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;

/**
 * The NFSv3 client over TCP against the guest's knfsd (issue 6, before the RPC-over-RDMA transport): port mapper and
 * rpcbind, MOUNT, NULL, GETATTR, LOOKUP, READ of 1 MiB, WRITE of 1 MiB with COMMIT, READDIR and READDIRPLUS of 1,000
 * entries, FSINFO and {@code writeFully} within its limits, every byte compared with what the guest's file system
 * holds; the same knfsd also listens for RDMA on 20049 (checked here, used by the RDMA interop tests). A device test although it uses TCP: knfsd exists only in the VM.
 * The server address is the rxe0 address, the interface NFS over RDMA will use.
 */
@RdmaDeviceTest(transport = Transport.ROCE)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(120)
class KnfsdTcpDeviceTest {
    static final Duration TIMEOUT = Duration.ofSeconds(60);
    static final OpaqueAuth ROOT = Nfs3Client.authSys("panama-rdma-test", 0, 0);
    /** The largest READ/WRITE knfsd accepts over TCP (RPCSVC_MAXPAYLOAD_TCP, 1 MiB) */
    static final int MAX_IO = 1 << 20;

    private static TcpRpcTransport nfsTransport;
    private static TcpRpcTransport mountTransport;
    private static Nfs3Client nfs;
    private static FileHandle3 root;
    private static KnfsdServer server;

    /** Starts knfsd, finds mountd through the port mapper, mounts the export: once for the class. */
    static synchronized Nfs3Client nfs(RdmaTestDevice device) throws Exception {
        if (nfs == null) {
            server = KnfsdServer.start();
            InetAddress ip = device.ipv4().orElseThrow(() -> new AssertionError(device + " has no IPv4 address"));
            int mountPort = KnfsdServer.mountdPort(ip.getHostAddress(), TIMEOUT);
            assertTrue(mountPort > 0, "mountd v3 is registered for TCP");
            mountTransport = TcpRpcTransport.connect(ip.getHostAddress(), mountPort);
            root = server.mountRoot(mountTransport, ROOT, TIMEOUT);
            nfsTransport = TcpRpcTransport.connect(new InetSocketAddress(ip, Nfs3.TCP_PORT), 2 * MAX_IO + 4096);
            nfs = new Nfs3Client(nfsTransport, ROOT, TIMEOUT);
        }
        return nfs;
    }

    @AfterAll
    static void unmount() throws Exception {
        if (mountTransport != null) {
            new MountClient(mountTransport, ROOT, TIMEOUT).unmount(server.export.toString());
            mountTransport.close();
        }
        if (nfsTransport != null) {
            nfsTransport.close();
        }
        KnfsdServer.stop();
    }

    private static long inode(Path path) throws Exception {
        return ((Number) Files.getAttribute(path, "unix:ino")).longValue();
    }

    @Test
    @Order(1)
    void portMapperRpcbindAndMountFindTheServices(RdmaTestDevice device) throws Exception {
        nfs(device);
        String host = device.ipv4().orElseThrow().getHostAddress();
        try (TcpRpcTransport t = TcpRpcTransport.connect(host, Portmap.PORT)) {
            PortmapClient pmap = new PortmapClient(t, TIMEOUT);
            assertEquals(Nfs3.TCP_PORT, pmap.getPort(Nfs3.PROGRAM, Nfs3.VERSION, Portmap.IPPROTO_TCP));
            List<Portmap.Mapping> all = pmap.dump();
            System.out.println("PMAPPROC_DUMP (rpcinfo -p):");
            all.forEach(m -> System.out.printf(
                    "  %d v%d %s port %d%n",
                    m.program(), m.version(), m.protocol() == Portmap.IPPROTO_TCP ? "tcp" : "udp", m.port()));
            assertTrue(all.contains(new Portmap.Mapping(Nfs3.PROGRAM, 3, Portmap.IPPROTO_TCP, 2049)), all::toString);
            assertTrue(all.stream().anyMatch(m -> m.program() == Mount3.PROGRAM && m.version() == 3), all::toString);
            String uaddr = pmap.getAddress(Nfs3.PROGRAM, Nfs3.VERSION, "tcp");
            System.out.println("RPCBPROC_GETADDR nfs v3 tcp: " + uaddr);
            assertEquals(Nfs3.TCP_PORT, Portmap.portOf(uaddr));
        }
        MountClient mount = new MountClient(mountTransport, ROOT, TIMEOUT);
        mount.ping();
        List<Mount3.Export> exports = mount.exports();
        assertTrue(exports.stream().anyMatch(e -> e.directory().equals(server.export.toString())), exports::toString);
        MountClient.MountException missing =
                assertThrows(MountClient.MountException.class, () -> mount.mount("/no/such/export"));
        System.out.println("MNT of a missing export: " + missing.getMessage());
    }

    @Test
    @Order(2)
    void nullAndGetattrOfTheRoot(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        c.ping();
        Fattr3 attributes = c.getattr(root);
        assertEquals(FileType3.NF3DIR, attributes.type());
        assertEquals(inode(server.export), attributes.fileid(), "fileid is the export directory's inode");
        assertEquals(0777, attributes.mode() & 07777);
    }

    @Test
    @Order(3)
    void lookupFindsFilesAndReportsMissingOnes(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        LookupResult hello = c.lookup(root, KnfsdServer.SMALL_FILE);
        assertNotNull(hello.attributes());
        assertEquals(FileType3.NF3REG, hello.attributes().type());
        assertEquals(KnfsdServer.SMALL_CONTENT.length(), hello.attributes().size());
        assertEquals(
                inode(server.export.resolve(KnfsdServer.SMALL_FILE)),
                hello.attributes().fileid());
        assertEquals(c.getattr(hello.handle()), hello.attributes());
        NfsException e = assertThrows(NfsException.class, () -> c.lookup(root, "no-such-file"));
        assertEquals(NfsStat3.NFS3ERR_NOENT, e.status());

        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(4096);
            ReadResult r = c.read(hello.handle(), 0, buffer);
            assertTrue(r.eof());
            assertEquals(KnfsdServer.SMALL_CONTENT, new String(r.data().toArray(ValueLayout.JAVA_BYTE)));
        }
    }

    @Test
    @Order(4)
    void readsTheMebibyteFileByteForByte(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        FileHandle3 file = c.lookup(root, KnfsdServer.PATTERN_FILE).handle();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(KnfsdServer.PATTERN_SIZE + 4096);
            long start = System.nanoTime();
            long n = c.readFully(file, 0, buffer, MAX_IO);
            long nanos = System.nanoTime() - start;
            System.out.printf("READ of %d bytes over TCP in %.1f ms (%.1f MB/s)%n", n, nanos / 1e6, n * 1e3 / nanos);
            assertEquals(KnfsdServer.PATTERN_SIZE, n);
            for (long i = 0; i < n; i++) {
                if (buffer.get(ValueLayout.JAVA_BYTE, i) != KnfsdServer.patternByte(i)) {
                    throw new AssertionError("byte " + i + " is " + buffer.get(ValueLayout.JAVA_BYTE, i) + ", expected "
                            + KnfsdServer.patternByte(i));
                }
            }
            ReadResult tail = c.read(file, KnfsdServer.PATTERN_SIZE - 10, buffer.asSlice(0, 100));
            assertEquals(10, tail.count());
            assertTrue(tail.eof());
            assertEquals(
                    KnfsdServer.patternByte(KnfsdServer.PATTERN_SIZE - 1),
                    tail.data().get(ValueLayout.JAVA_BYTE, 9));
        }
    }

    @Test
    @Order(5)
    void writesAMebibyteCommitsItAndTheGuestReadsIt(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        FileHandle3 file = c.lookup(root, KnfsdServer.WRITE_TARGET).handle();
        byte[] data = new byte[1 << 20];
        new Random(6).nextBytes(data);
        MemorySegment source = MemorySegment.ofArray(data);
        long start = System.nanoTime();
        int half = data.length / 2;
        // two UNSTABLE WRITEs then a COMMIT: the verifiers must agree (no server restart in between)
        WriteResult first = c.write(file, 0, source.asSlice(0, half), StableHow.UNSTABLE);
        WriteResult second = c.write(file, half, source.asSlice(half), StableHow.UNSTABLE);
        CommitResult commit = c.commit(file, 0, 0);
        long nanos = System.nanoTime() - start;
        System.out.printf(
                "WRITE of %d bytes + COMMIT over TCP in %.1f ms (%.1f MB/s); committed %s/%s%n",
                data.length, nanos / 1e6, data.length * 1e3 / nanos, first.committed(), second.committed());
        assertEquals(half, first.count());
        assertEquals(data.length - half, second.count());
        assertEquals(first.verifier(), second.verifier());
        assertEquals(first.verifier(), commit.verifier());
        assertNotNull(commit.wcc().after());
        assertEquals(data.length, commit.wcc().after().size());
        assertArrayEquals(
                data,
                Files.readAllBytes(server.export.resolve(KnfsdServer.WRITE_TARGET)),
                "the guest reads what the client wrote");

        WriteResult sync = c.write(file, 0, MemorySegment.ofArray("synced".getBytes()), StableHow.FILE_SYNC);
        assertEquals(StableHow.FILE_SYNC, sync.committed());
        assertEquals("synced", new String(Files.readAllBytes(server.export.resolve(KnfsdServer.WRITE_TARGET)), 0, 6));
    }

    @Test
    @Order(6)
    void readdirListsTheThousandEntries(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        LookupResult dir = c.lookup(root, KnfsdServer.BIG_DIRECTORY);
        assertEquals(FileType3.NF3DIR, dir.attributes().type());
        Set<String> expected = IntStream.range(0, KnfsdServer.BIG_DIRECTORY_ENTRIES)
                .mapToObj(i -> String.format("entry-%03d", i))
                .collect(Collectors.toCollection(TreeSet::new));
        expected.add(".");
        expected.add("..");

        // 8 KiB per READDIR: several batches, resumed by cookie
        List<DirEntry3> entries = c.listDirectory(dir.handle(), 8192, false);
        assertEquals(expected.size(), entries.size(), "no entry twice");
        assertEquals(expected, entries.stream().map(DirEntry3::name).collect(Collectors.toCollection(TreeSet::new)));
        Path dirPath = server.export.resolve(KnfsdServer.BIG_DIRECTORY);
        for (DirEntry3 e : entries.subList(0, 20)) {
            if (!e.name().startsWith(".")) {
                assertEquals(inode(dirPath.resolve(e.name())), e.fileid(), e.name());
            }
        }
        // one READDIR of up to 64 KiB takes all 1,002 entries at once (about 32 bytes each)
        DirList3 all = c.readdir(dir.handle(), 0, 0, 64 << 10);
        assertTrue(all.eof());
        assertEquals(expected.size(), all.entries().size());

        List<DirEntry3> plus = c.listDirectory(dir.handle(), 32 << 10, true);
        assertEquals(expected, plus.stream().map(DirEntry3::name).collect(Collectors.toCollection(TreeSet::new)));
        DirEntry3 some = plus.stream()
                .filter(e -> e.name().equals("entry-500"))
                .findFirst()
                .orElseThrow();
        assertNotNull(some.handle(), "READDIRPLUS returns handles");
        assertEquals(FileType3.NF3REG, some.attributes().type());
        assertEquals(c.lookup(dir.handle(), "entry-500").handle(), some.handle());
    }

    @Test
    @Order(7)
    void knfsdListensForRdmaOnRxeAndSiw(RdmaTestDevice device) throws Exception {
        nfs(device);
        assertEquals("ok", server.rdmaListener, "echo rdma 20049 > /proc/fs/nfsd/portlist");
        String ports = Files.readString(Path.of("/proc/fs/nfsd/portlist"));
        assertTrue(ports.lines().anyMatch("rdma 20049"::equals), ports);
        String listeners = KnfsdServer.run(List.of("rdma", "resource", "show", "cm_id"), 30);
        System.out.print("rdma resource show cm_id:\n" + listeners);
        for (String dev : List.of("rxe0", "siw0")) {
            assertTrue(
                    listeners
                            .lines()
                            .anyMatch(l -> l.startsWith("link " + dev + "/")
                                    && l.contains("LISTEN")
                                    && l.contains("[rpcrdma]")
                                    && l.contains(":20049")),
                    dev + " has an svcrdma listener on 20049");
        }
    }

    @Test
    @Order(8)
    void fsinfoGivesTheLimitsAndTheClientKeepsToThem(RdmaTestDevice device) throws Exception {
        Nfs3Client c = nfs(device);
        FsInfo info = c.fsinfo(root);
        System.out.println("FSINFO over TCP " + info);
        assertTrue(info.rtmax() >= 4096 && info.wtmax() >= 4096, info.toString());
        assertTrue(info.rtmax() <= MAX_IO && info.wtmax() <= MAX_IO, "at most RPCSVC_MAXPAYLOAD_TCP: " + info);
        assertEquals(0x1b, info.properties(), "knfsd's NFS3_FSF_DEFAULT: LINK, SYMLINK, HOMOGENEOUS, CANSETTIME");
        assertEquals(info, c.limits().orElseThrow());

        FileHandle3 file = c.lookup(root, KnfsdServer.WRITE_TARGET).handle();
        byte[] data = new byte[1 << 20];
        new Random(8).nextBytes(data);
        WriteFullyResult w = c.writeFully(file, 0, MemorySegment.ofArray(data), StableHow.UNSTABLE);
        CommitResult commit = c.commit(file, 0, 0);
        System.out.printf(
                "writeFully of %d bytes over TCP in %d WRITEs, committed %s%n", w.count(), w.calls(), w.committed());
        assertEquals(data.length, w.count());
        assertEquals((data.length + info.preferredWriteSize() - 1) / info.preferredWriteSize(), w.calls());
        assertEquals(w.verifier(), commit.verifier());
        assertArrayEquals(data, Files.readAllBytes(server.export.resolve(KnfsdServer.WRITE_TARGET)));

        CountingTransport counting = new CountingTransport(nfsTransport);
        Nfs3Client fresh = new Nfs3Client(counting, ROOT, TIMEOUT);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> fresh.write(
                        file, 0, MemorySegment.ofArray(new byte[(int) info.wtmax() + 1]), StableHow.FILE_SYNC));
        System.out.println(e.getMessage());
        assertEquals(List.of(Nfs3.PROC_FSINFO), counting.procedures, "no WRITE was sent");
        assertArrayEquals(data, Files.readAllBytes(server.export.resolve(KnfsdServer.WRITE_TARGET)));
    }

    /** Kernel messages of nfsd, sunrpc and svcrdma that mean trouble. */
    private static final Pattern TROUBLE = Pattern.compile(
            "(?i)((nfsd|svcrdma|rpcrdma|sunrpc|rpc).*(error|fail|warn|refus|drop))|call trace|bug:|oops");

    /**
     * mountd's port is one no socket is given automatically: not a reserved port (root's RPC clients bind their source
     * port below 1024, libtirpc's {@code bindresvport} and the kernel's sunrpc alike) and not an ephemeral one. A
     * socket left on it in TIME_WAIT keeps mountd from listening for TCP when it next starts (rehearsal r37: a
     * user-space client's connection 127.0.0.1:892 -> 127.0.0.1:111, when mountd was on 892).
     */
    @Test
    @Order(9)
    void mountdListensOnAPortNoClientIsGiven(RdmaTestDevice device) throws Exception {
        nfs(device);
        int port = KnfsdServer.mountdPort(device.ipv4().orElseThrow().getHostAddress(), TIMEOUT);
        int[] ephemeral = ports("/proc/sys/net/ipv4/ip_local_port_range");
        int reservedLow = ports("/proc/sys/sunrpc/min_resvport")[0];
        int reservedHigh = ports("/proc/sys/sunrpc/max_resvport")[0];
        System.out.printf(
                "mountd on TCP port %d; ephemeral ports %d-%d; sunrpc's reserved ports %d-%d%n",
                port, ephemeral[0], ephemeral[1], reservedLow, reservedHigh);
        assertTrue(
                port >= 1024,
                "mountd's port " + port + " must not be a reserved port (below 1024), which clients bind");
        assertFalse(
                port >= ephemeral[0] && port <= ephemeral[1],
                "mountd's port " + port + " must be outside the ephemeral ports " + ephemeral[0] + "-" + ephemeral[1]);
        assertFalse(
                port >= reservedLow && port <= reservedHigh,
                "mountd's port " + port + " must be outside sunrpc's reserved ports " + reservedLow + "-"
                        + reservedHigh);
    }

    /** A sysctl's numbers. Not {@code Files.readString}: on a /proc/sys file it returns the first byte only. */
    private static int[] ports(String procFile) throws Exception {
        return Pattern.compile("\\s+")
                .splitAsStream(
                        String.join(" ", Files.readAllLines(Path.of(procFile))).strip())
                .mapToInt(Integer::parseInt)
                .toArray();
    }

    @Test
    @Order(100)
    void kernelLogShowsNoNfsdOrSvcrdmaErrors(RdmaTestDevice device) throws Exception {
        nfs(device);
        List<String> log = KnfsdServer.kernelLog();
        List<String> during = log.subList(Math.min(server.kernelLogLinesBefore, log.size()), log.size());
        System.out.println("kernel log of nfsd/RPC during the run:");
        during.stream().filter(l -> l.matches("(?i).*(nfsd|rpc|svc).*")).forEach(l -> System.out.println("  " + l));
        List<String> trouble =
                during.stream().filter(l -> TROUBLE.matcher(l).find()).toList();
        assertTrue(trouble.isEmpty(), "kernel log during the run: " + trouble);
        assertFalse(log.isEmpty(), "dmesg is readable (the guest runs the tests as root)");
    }
}
