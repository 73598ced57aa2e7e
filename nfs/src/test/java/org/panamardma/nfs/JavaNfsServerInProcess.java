package org.panamardma.nfs;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.panamardma.nfs.server.NfsServer;

/**
 * The Java NFS server in the test's own JVM (no JVM start in the emulated guest: half a minute saved per test),
 * with a logging handler that keeps what the server side logs at WARN or above: the NFS server, the RPC-over-RDMA
 * and TCP servers and the connection layer under them.
 */
final class JavaNfsServerInProcess extends JavaNfsServerSite {
    private static final List<String> SERVER_LOGGERS = List.of(
            "org.panamardma.nfs.server",
            "org.panamardma.rpcrdma.server",
            "org.panamardma.oncrpc.tcp.TcpRpcServer",
            "org.panamardma.verbs.connection.RdmaServer",
            "org.panamardma.verbs.connection.RdmaConnection");

    private final List<String> problems = new CopyOnWriteArrayList<>();
    private final StringBuilder statistics = new StringBuilder();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord r) {
            String logger = r.getLoggerName() == null ? "" : r.getLoggerName();
            if (r.getLevel().intValue() >= Level.WARNING.intValue()
                    && SERVER_LOGGERS.stream().anyMatch(logger::startsWith)) {
                problems.add(r.getLevel() + " " + logger + ": " + r.getMessage()
                        + (r.getThrown() == null ? "" : " " + r.getThrown()));
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };
    private NfsServer server;
    private final Consumer<NfsServer.Builder> settings;

    JavaNfsServerInProcess(String name, String address, int tcpPort, int mountPort, int rdmaPort)
            throws IOException, InterruptedException {
        this(name, address, tcpPort, mountPort, rdmaPort, b -> {});
    }

    /** A server whose export options (client list, squashing, ro) {@code settings} sets. */
    JavaNfsServerInProcess(
            String name, String address, int tcpPort, int mountPort, int rdmaPort, Consumer<NfsServer.Builder> settings)
            throws IOException, InterruptedException {
        super(name, address, tcpPort, mountPort, rdmaPort);
        this.settings = settings;
    }

    @Override
    public void start() throws IOException {
        Logger.getLogger("").addHandler(handler);
        InetAddress ip = InetAddress.getByName(address);
        NfsServer.Builder b = NfsServer.builder(export)
                .state(state)
                .rpcbind(false)
                .tcp(new InetSocketAddress(ip, tcpPort))
                .mount(new InetSocketAddress(ip, mountPort))
                .rdma(new InetSocketAddress(ip, rdmaPort));
        settings.accept(b);
        server = b.start();
    }

    @Override
    public String log() {
        return statistics + (server == null ? "" : server.statistics());
    }

    @Override
    public List<String> problems() {
        return List.copyOf(problems);
    }

    @Override
    public void close() {
        if (server != null) {
            statistics.append(server.statistics()).append('\n');
            server.close();
            server = null;
        }
        Logger.getLogger("").removeHandler(handler);
    }
}
