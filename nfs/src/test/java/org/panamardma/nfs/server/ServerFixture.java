package org.panamardma.nfs.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.MountClient;
import org.panamardma.nfs.Nfs3Client;
import org.panamardma.nfs.rpc.TcpRpcTransport;

/**
 * A {@link NfsServer} on loopback exporting {@code <dir>/export} (owned by uid/gid 1000, mode 0755) with its state in
 * {@code <dir>/state}, over TCP only, and clients of it acting as given users.
 */
final class ServerFixture implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    static final int USER = 1000;
    static final int OTHER = 2000;

    final Path export;
    final Path state;
    final NfsServer server;
    final FileHandle3 root;
    private final List<TcpRpcTransport> transports = new ArrayList<>();

    private ServerFixture(Path export, Path state, NfsServer server, FileHandle3 root) {
        this.export = export;
        this.state = state;
        this.server = server;
        this.root = root;
    }

    /** Creates the export under {@code dir} and starts a server on it. */
    static ServerFixture start(Path dir, ExportOptions options) throws Exception {
        Path export = Files.createDirectories(dir.resolve("export"));
        Files.setAttribute(export, "unix:uid", USER);
        Files.setAttribute(export, "unix:gid", USER);
        return restart(export, dir.resolve("state"), options);
    }

    /** Creates the export under {@code dir} and starts a server on it, with settings changed by {@code settings}. */
    static ServerFixture start(Path dir, ExportOptions options, Consumer<NfsServer.Builder> settings) throws Exception {
        Path export = Files.createDirectories(dir.resolve("export"));
        Files.setAttribute(export, "unix:uid", USER);
        Files.setAttribute(export, "unix:gid", USER);
        return restart(export, dir.resolve("state"), options, settings);
    }

    /** Starts a server on an existing export and state. */
    static ServerFixture restart(Path export, Path state, ExportOptions options) throws Exception {
        return restart(export, state, options, b -> {});
    }

    /** Starts a server on an existing export and state, with settings changed by {@code settings}. */
    static ServerFixture restart(Path export, Path state, ExportOptions options, Consumer<NfsServer.Builder> settings)
            throws Exception {
        InetAddress lo = InetAddress.getLoopbackAddress();
        NfsServer.Builder builder = NfsServer.builder(export)
                .state(state)
                .options(options)
                .rpcbind(false)
                .tcp(new InetSocketAddress(lo, 0))
                .mount(new InetSocketAddress(lo, 0))
                .buffers(8, 4);
        settings.accept(builder);
        NfsServer server = builder.start();
        try (TcpRpcTransport m = TcpRpcTransport.connectFromReservedPort(server.mountAddress(), 1 << 16)) {
            FileHandle3 root = new MountClient(m, Nfs3Client.authSys("fixture", USER, USER), TIMEOUT)
                    .mount(server.exportPath())
                    .root();
            return new ServerFixture(export, state, server, root);
        } catch (Exception e) {
            server.close();
            throw e;
        }
    }

    /** A client acting as {@code uid}/{@code gid}, from a reserved port (as Linux's client: the export is secure). */
    Nfs3Client client(int uid, int gid) throws IOException {
        return new Nfs3Client(transport(), Nfs3Client.authSys("test", uid, gid), TIMEOUT);
    }

    /** A connection from a reserved port. */
    TcpRpcTransport transport() throws IOException {
        TcpRpcTransport t = TcpRpcTransport.connectFromReservedPort(server.tcpAddress(), 4 << 20);
        transports.add(t);
        return t;
    }

    /** A connection from an ordinary (unprivileged) port. */
    TcpRpcTransport unprivilegedTransport() throws IOException {
        TcpRpcTransport t = TcpRpcTransport.connect(server.tcpAddress(), 4 << 20);
        transports.add(t);
        return t;
    }

    @Override
    public void close() {
        for (TcpRpcTransport t : transports) {
            t.close();
        }
        server.close();
    }

    static String sha256(byte[] data) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
        } catch (NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
