package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Mount3;
import org.panamardma.nfs.MountClient;
import org.panamardma.nfs.MountStat3;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.Nfs3Client;
import org.panamardma.nfs.NfsException;
import org.panamardma.nfs.NfsStat3;
import org.panamardma.nfs.StableHow;
import org.panamardma.nfs.rpc.TcpRpcTransport;
import org.panamardma.oncrpc.AuthStat;
import org.panamardma.oncrpc.RejectStat;
import org.panamardma.oncrpc.tcp.RpcReplyException;

/**
 * The export's client list and per-client options, as /etc/exports users expect (issue 25, item 2), over TCP on
 * loopback, where 127.0.0.1, 127.0.0.2 and 127.0.0.3 are three clients. On 5c5f9a1 none of this existed: every
 * address and every port could mount and use the export, read-write.
 */
class NfsServerExportsTest {
    private static final InetAddress ONE = address("127.0.0.1");
    private static final InetAddress TWO = address("127.0.0.2");
    private static final InetAddress THREE = address("127.0.0.3");

    @TempDir
    Path dir;

    private NfsServer server;
    private final List<TcpRpcTransport> transports = new ArrayList<>();

    private static InetAddress address(String a) {
        try {
            return InetAddress.getByName(a);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @AfterEach
    void stop() {
        transports.forEach(TcpRpcTransport::close);
        if (server != null) {
            server.close();
        }
    }

    private Path export() throws Exception {
        Path export = Files.createDirectories(dir.resolve("export"));
        Files.setAttribute(export, "unix:mode", 0777);
        return export;
    }

    private void start(NfsServer.Builder b) throws Exception {
        server = b.state(dir.resolve("state"))
                .rpcbind(false)
                .tcp(new InetSocketAddress(ONE, 0))
                .mount(new InetSocketAddress(ONE, 0))
                .buffers(8, 4)
                .start();
    }

    /** A connection from {@code from}, from a reserved port if {@code reserved}. */
    private TcpRpcTransport connect(InetSocketAddress to, InetAddress from, boolean reserved) throws Exception {
        TcpRpcTransport t = reserved
                ? TcpRpcTransport.connectFromReservedPort(to, from, 4 << 20)
                : TcpRpcTransport.over(
                        org.panamardma.oncrpc.tcp.TcpRpcClient.connect(to, new InetSocketAddress(from, 0), 4 << 20));
        transports.add(t);
        return t;
    }

    private MountClient mount(InetAddress from, boolean reserved) throws Exception {
        return new MountClient(
                connect(server.mountAddress(), from, reserved),
                Nfs3Client.authSys("m", 1000, 1000),
                ServerFixture.TIMEOUT);
    }

    private Nfs3Client nfs(InetAddress from, boolean reserved, int uid) throws Exception {
        return new Nfs3Client(
                connect(server.tcpAddress(), from, reserved), Nfs3Client.authSys("c", uid, uid), ServerFixture.TIMEOUT);
    }

    private FileHandle3 root(InetAddress from) throws Exception {
        return mount(from, true).mount(server.exportPath()).root();
    }

    @Test
    void anAddressNotListedIsRefusedButNull() throws Exception {
        start(NfsServer.builder(export()).allow("127.0.0.2/32"));
        FileHandle3 root = root(TWO);
        var refused = assertThrows(
                MountClient.MountException.class, () -> mount(ONE, true).mount(server.exportPath()));
        assertEquals(MountStat3.MNT3ERR_ACCES, refused.status(), "MNT: access denied, as rpc.mountd says it");
        mount(ONE, true).ping();
        Nfs3Client stranger = nfs(ONE, true, 1000);
        stranger.ping(); // NULL touches nothing
        RpcReplyException e = assertThrows(RpcReplyException.class, () -> stranger.getattr(root));
        assertEquals(RejectStat.AUTH_ERROR, e.rejectStat(), "with a handle it learnt elsewhere: refused anyway");
        assertEquals(AuthStat.AUTH_BADCRED, e.authStat(), "knfsd's answer to an address it does not know");
        assertThrows(RpcReplyException.class, () -> mount(THREE, true).exports());
        assertEquals(0777L, nfs(TWO, true, 1000).getattr(root).mode(), "a listed address is served");
        assertEquals(Nfs3.ACCESS_READ, nfs(TWO, true, 1000).access(root, Nfs3.ACCESS_READ));
        var exports = mount(TWO, true).exports();
        assertEquals(List.of("127.0.0.2/32"), exports.get(0).groups(), "EXPORT names the client list");
    }

    @Test
    void secureTakesReservedPortsOnlyAndInsecureLiftsIt() throws Exception {
        start(NfsServer.builder(export()));
        FileHandle3 root = root(ONE);
        assertEquals(
                MountStat3.MNT3ERR_ACCES,
                assertThrows(
                                MountClient.MountException.class,
                                () -> mount(ONE, false).mount(server.exportPath()))
                        .status());
        Nfs3Client unprivileged = nfs(ONE, false, 1000);
        unprivileged.ping();
        assertEquals(
                NfsStat3.NFS3ERR_PERM,
                assertThrows(NfsException.class, () -> unprivileged.getattr(root))
                        .status(),
                "knfsd's answer to a call from an insecure port");
        server.close();

        start(NfsServer.builder(export()).options(ExportOptions.DEFAULTS.withSecure(false)));
        FileHandle3 again = mount(ONE, false).mount(server.exportPath()).root();
        assertEquals(again, root);
        nfs(ONE, false, 1000).getattr(again);
    }

    @Test
    void eachClientBlockHasItsOwnOptionsAndTheMostSpecificDecides() throws Exception {
        start(NfsServer.builder(export())
                .allow("127.0.0.0/8")
                .allow("127.0.0.1(ro)")
                .allow("127.0.0.2/32(all_squash,anonuid=4242,anongid=4343)"));
        FileHandle3 root = root(ONE);
        Nfs3Client readOnly = nfs(ONE, true, 1000);
        assertEquals(
                NfsStat3.NFS3ERR_ROFS,
                assertThrows(NfsException.class, () -> readOnly.create(root, "f", 0644))
                        .status());
        assertEquals(0, readOnly.access(root, Nfs3.ACCESS_MODIFY));
        Nfs3Client squashed = nfs(TWO, true, 1000);
        FileHandle3 f = squashed.create(root, "by-two", 0644).handle();
        squashed.write(f, 0, MemorySegment.ofArray("two".getBytes()), StableHow.FILE_SYNC);
        Path made = Path.of(server.exportPath()).resolve("by-two");
        assertEquals(4242, Files.getAttribute(made, "unix:uid"));
        assertEquals(4343, Files.getAttribute(made, "unix:gid"));
        nfs(THREE, true, 1000).create(root, "by-three", 0644);
        assertEquals(1000, Files.getAttribute(Path.of(server.exportPath()).resolve("by-three"), "unix:uid"));
        assertThrows(
                IllegalArgumentException.class,
                () -> NfsServer.builder(export())
                        .allow("127.0.0.1/8")
                        .state(dir.resolve("state2"))
                        .tcp(null)
                        .mount(new InetSocketAddress(ONE, 0))
                        .rpcbind(false)
                        .start(),
                "host bits set");
    }

    @Test
    void refusalsAreLoggedAtABoundedRate() throws Exception {
        List<LogRecord> warnings = new ArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord r) {
                if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
                    synchronized (warnings) {
                        warnings.add(r);
                    }
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger gate = Logger.getLogger(ExportGate.class.getName());
        gate.addHandler(handler);
        try {
            start(NfsServer.builder(export()).allow("127.0.0.2/32"));
            FileHandle3 root = root(TWO);
            Nfs3Client stranger = nfs(ONE, true, 1000);
            for (int i = 0; i < 200; i++) {
                assertThrows(RpcReplyException.class, () -> stranger.getattr(root));
            }
        } finally {
            gate.removeHandler(handler);
        }
        synchronized (warnings) {
            assertTrue(warnings.size() <= 20, warnings.size() + " lines for 200 refusals");
            assertTrue(warnings.size() >= 1, "refusals are logged");
        }
    }

    @Test
    void theMountListIsBounded() throws Exception {
        start(NfsServer.builder(export()));
        TcpRpcTransport t = connect(server.mountAddress(), ONE, true);
        for (int i = 0; i < MountServer.MAX_MOUNTS + 300; i++) {
            new MountClient(t, Nfs3Client.authSys("host-" + i, 0, 0), ServerFixture.TIMEOUT).mount(server.exportPath());
        }
        var dump = t.call(
                Mount3.PROGRAM,
                Mount3.VERSION,
                2,
                Nfs3Client.authSys("d", 0, 0),
                org.panamardma.xdr.XdrEncodable.VOID,
                org.panamardma.nfs.rpc.ReplyReader.of(in -> {
                    int n = 0;
                    while (in.getBoolean()) {
                        in.getString(Mount3.MNTNAMLEN);
                        in.getString(Mount3.MNTPATHLEN);
                        n++;
                    }
                    return n;
                }),
                ServerFixture.TIMEOUT);
        assertEquals(MountServer.MAX_MOUNTS, dump, "the oldest are forgotten");
    }
}
