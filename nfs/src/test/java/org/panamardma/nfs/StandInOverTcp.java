package org.panamardma.nfs;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.panamardma.nfs.rpc.TcpRpcTransport;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc.tcp.TcpRpcServer;

/**
 * The client host tests' prelude: a stand-in NFSv3 server ({@link StandInNfs3Server}'s dispatcher) on a loopback TCP
 * port and an {@link Nfs3Client} connected to it as root (AUTH_SYS uid and gid 0); closing closes both.
 */
final class StandInOverTcp implements AutoCloseable {
    /** Records up to 4 MiB: the tests' largest READ or WRITE with its header. */
    private static final int MAX_RECORD = 4 << 20;

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final TcpRpcServer server;
    private final TcpRpcTransport transport;
    final Nfs3Client nfs;

    private StandInOverTcp(TcpRpcServer server, TcpRpcTransport transport, Nfs3Client nfs) {
        this.server = server;
        this.transport = transport;
        this.nfs = nfs;
    }

    /** Starts {@code dispatcher} on loopback and connects a client that calls itself {@code machineName}. */
    static StandInOverTcp start(RpcDispatcher dispatcher, String machineName) throws IOException {
        TcpRpcServer server = TcpRpcServer.builder(dispatcher)
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .start();
        try {
            TcpRpcTransport transport = TcpRpcTransport.connect(server.address(), MAX_RECORD);
            return new StandInOverTcp(
                    server, transport, new Nfs3Client(transport, Nfs3Client.authSys(machineName, 0, 0), TIMEOUT));
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    @Override
    public void close() {
        transport.close();
        server.close();
    }
}
