package org.panamardma.nfs.server;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.panamardma.nfs.Mount3;
import org.panamardma.nfs.Nfs3;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc.tcp.TcpRpcServer;
import org.panamardma.rpcrdma.server.RpcRdmaServer;
import org.panamardma.rpcrdma.server.ServerStatistics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An NFSv3 server exporting one directory: the NFS program ({@link Nfs3Server}) hosted by one
 * {@link RpcDispatcher} over TCP and over RPC-over-RDMA (RFC 8166; any number of RDMA listeners) at once, and the
 * MOUNT program over TCP on a port of its own, fixed so that clients need no port mapper
 * ({@code mount -o port=...,mountport=...,mountproto=tcp}); it also registers with the local rpcbind when one runs.
 *
 * <pre>{@code
 * try (NfsServer server = NfsServer.builder(Path.of("/srv/export"))
 *         .tcp(new InetSocketAddress(2049)).mount(new InetSocketAddress(20048))
 *         .rdma(new InetSocketAddress("10.77.0.2", 20049)).start()) {
 *     server.awaitClose();
 * }
 * }</pre>
 *
 * <p>The state directory holds the secret that signs file handles ({@link FileHandles}), so that handles stay valid
 * across restarts; it must not be inside the export (clients could read it), and the server refuses one that is.
 */
public final class NfsServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NfsServer.class);
    /** How long {@link #close()} waits for running procedures before it frees their data buffers. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);
    /** MOUNT's port by default: the one Linux's rpc.mountd is usually given (Debian's MOUNTD_PORT examples). */
    public static final int DEFAULT_MOUNT_PORT = 20048;

    private final ExportFs fs;
    private final IoBuffers buffers;
    private final CallerThreads threads;
    private final Nfs3Server nfs;
    private final TcpRpcServer tcp;
    private final TcpRpcServer mount;
    private final List<RpcRdmaServer> rdma;
    private final RpcbindRegistration rpcbind = new RpcbindRegistration();
    private final Object closedLock = new Object();
    private boolean closed;

    private NfsServer(Builder b) throws IOException {
        ExportClients clients = ExportClients.of(b.allowed, b.options);
        ServerIdentity identity = ServerIdentity.ofThisProcess();
        Squashing squashing = Squashing.forThisProcess(identity);
        clients.requireRepresentableAnonymousIds(IdRanges.users(), IdRanges.groups());
        byte[] secret = HandleSecret.load(b.state, b.export);
        ExportFs opened = ExportFs.open(b.export, secret);
        opened.walkWait(b.resourceWait);
        IoBuffers pool = null;
        CallerThreads workers = null;
        Nfs3Server program;
        List<RpcRdmaServer> rdmaServers = new ArrayList<>();
        TcpRpcServer tcpServer = null;
        TcpRpcServer mountServer = null;
        RateLimitedLog refusals = ExportGate.refusalLog();
        try {
            pool = new IoBuffers(Nfs3Server.MAX_IO, b.smallBuffers, b.largeBuffers);
            workers = new CallerThreads(identity, b.threads, b.threads * 64, "nfs-caller");
            program = new Nfs3Server(
                    opened,
                    new CallRunner(
                            pool, workers, squashing, new CallRunner.Waits(b.resourceWait, b.runningWait), refusals));
            RpcDispatcher.Builder nfsDispatcher = RpcDispatcher.builder();
            program.register(nfsDispatcher);
            RpcDispatcher dispatcher = nfsDispatcher.build();
            RpcDispatcher.Builder mountDispatcher = RpcDispatcher.builder();
            Nfs3Server p = program;
            new MountServer(
                            opened,
                            clients,
                            squashing,
                            refusals,
                            () -> LOG.atInfo().log(() -> statistics(p, rdmaServers)))
                    .register(mountDispatcher);
            RpcDispatcher mountPrograms = mountDispatcher.build();
            if (b.tcp != null) {
                tcpServer = TcpRpcServer.builder(
                                new ExportGate(dispatcher, Set.of(), clients, true, "NFS over TCP", refusals))
                        .bind(b.tcp)
                        .logConnections(true)
                        .maxRecordSize(Nfs3Server.MAX_IO + (64 << 10))
                        .replyBufferSize(Nfs3Server.MAX_DIR_REPLY + (16 << 10))
                        .start();
            }
            for (InetSocketAddress address : b.rdma) {
                // over RDMA the client's port proves nothing (the Linux client's RDMA CM port is ephemeral): the
                // client list applies, secure does not, as with knfsd
                rdmaServers.add(RpcRdmaServer.builder(
                                new ExportGate(dispatcher, Set.of(), clients, false, "NFS over RDMA", refusals))
                        .bind(address)
                        .logConnections(true)
                        .maxMessageSizes(Nfs3Server.MAX_IO + (64 << 10), Nfs3Server.MAX_IO + (64 << 10))
                        .credits(b.credits)
                        .timeout(b.rdmaTimeout)
                        .start());
            }
            mountServer = TcpRpcServer.builder(
                            new ExportGate(mountPrograms, Set.of(Mount3.PROC_MNT), clients, true, "MOUNT", refusals))
                    .bind(b.mount)
                    .logConnections(true)
                    .start();
        } catch (IOException | RuntimeException e) {
            for (RpcRdmaServer r : rdmaServers) {
                r.close();
            }
            if (tcpServer != null) {
                tcpServer.close();
            }
            if (workers != null) {
                workers.close();
            }
            if (pool != null) {
                pool.close();
            }
            opened.close();
            throw e;
        }
        this.fs = opened;
        this.buffers = pool;
        this.threads = workers;
        this.nfs = program;
        this.tcp = tcpServer;
        this.rdma = List.copyOf(rdmaServers);
        this.mount = mountServer;
        LOG.info("exporting " + fs.path() + " to "
                + (clients.everyAddress()
                        ? "every address (no --allow given: any host that can reach the server may mount it) with "
                                + clients.defaults()
                        : clients)
                + "; NFSv3"
                + (tcp != null ? " over TCP " + tcp.address() : "")
                + rdma.stream().map(r -> " over RDMA " + r.address()).reduce("", String::concat)
                + "; MOUNT v3 over TCP " + mount.address() + "; state " + b.state + "; acting as each caller on "
                + b.threads + " threads");
        if (!identity.privileged()) {
            LOG.warn("the server runs as " + identity + " without CAP_SETUID and CAP_SETGID: it cannot act as its"
                    + " callers, so every caller acts as " + Integer.toUnsignedString(identity.uid()) + ":"
                    + Integer.toUnsignedString(identity.gid()) + " (files are made by that user, the kernel checks"
                    + " that user's permissions, and no client may make set-id files)");
        }
        if (b.rpcbind) {
            rpcbind.register(tcp == null ? 0 : tcp.port(), mount.port());
        }
        // a platform thread: a virtual one's timed waits would wake the virtual-thread scheduler twice a second,
        // and its carriers spin each time before they park again (issue 26)
        Thread.ofPlatform().daemon(true).name("nfs-server-clients").start(this::watchClients);
    }

    /**
     * Logs the statistics each time the last client connection goes (Linux's umount sends no UMNT for NFSv3, so
     * this is when a mount's work is over): calls, bytes, and over RDMA the chunks moved.
     */
    private void watchClients() {
        int before = 0;
        while (true) {
            synchronized (closedLock) {
                if (closed) {
                    return;
                }
                try {
                    closedLock.wait(500);
                } catch (InterruptedException e) {
                    return;
                }
                if (closed) {
                    return;
                }
            }
            int now = (tcp == null ? 0 : tcp.connectionCount())
                    + rdma.stream().mapToInt(RpcRdmaServer::connectionCount).sum();
            if (before > 0 && now == 0) {
                LOG.atInfo().log(() -> "no client connected; " + statistics());
            }
            before = now;
        }
    }

    /**
     * {@return a builder exporting {@code export}}
     *
     * @param export the directory to export; opened by {@link Builder#start()}
     */
    public static Builder builder(Path export) {
        return new Builder(export);
    }

    /** {@return where NFS over TCP listens, or null} */
    public InetSocketAddress tcpAddress() {
        return tcp == null ? null : tcp.address();
    }

    /** {@return where MOUNT listens (TCP)} */
    public InetSocketAddress mountAddress() {
        return mount.address();
    }

    /** {@return the RPC-over-RDMA servers, one per listener} */
    public List<RpcRdmaServer> rdmaServers() {
        return rdma;
    }

    /** The exported tree (for tests: what handle resolution cost). */
    ExportFs exportFs() {
        return fs;
    }

    /** The READ/WRITE buffer pool (for tests: what is lent out). */
    IoBuffers ioBuffers() {
        return buffers;
    }

    /** {@return the exported directory, absolute} */
    public String exportPath() {
        return fs.path();
    }

    /** {@return calls per procedure and the data moved; over RDMA also the chunks (what a log line shows)} */
    public String statistics() {
        return statistics(nfs, rdma);
    }

    private static String statistics(Nfs3Server nfs, List<RpcRdmaServer> rdma) {
        StringBuilder b = new StringBuilder("NFS ").append(nfs.statistics());
        for (RpcRdmaServer r : rdma) {
            ServerStatistics s = r.statistics();
            b.append("; RDMA ").append(r.address()).append(": ").append(s);
        }
        return b.toString();
    }

    /**
     * Blocks until {@link #close()} is called (by another thread, a shutdown hook).
     *
     * @throws InterruptedException if interrupted while waiting
     */
    public void awaitClose() throws InterruptedException {
        synchronized (closedLock) {
            while (!closed) {
                closedLock.wait();
            }
        }
    }

    @Override
    public void close() {
        synchronized (closedLock) {
            if (closed) {
                return;
            }
            closed = true;
            closedLock.notifyAll();
        }
        rpcbind.unregister();
        mount.close();
        if (tcp != null) {
            tcp.close();
        }
        for (RpcRdmaServer r : rdma) {
            r.close();
        }
        // DEBUG: at JVM exit the logging system may be shut down already; the command prints its own last line
        LOG.atDebug().log(() -> "stopped; " + statistics());
        threads.close();
        // a procedure still running (its caller gave up on it, or a transport was closed under it) may be inside a
        // system call on a pooled buffer, which keeps the pool's arena acquired: free the pool once none runs
        boolean idle;
        try {
            idle = threads.awaitIdle(CLOSE_WAIT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            idle = false;
        }
        if (idle) {
            buffers.close();
        } else {
            LOG.warn("a procedure still runs " + CLOSE_WAIT.toSeconds() + " s after the server closed (a file system"
                    + " that hangs?): its data buffers are left allocated");
        }
        fs.close();
    }

    /**
     * The default state directory: {@code $XDG_STATE_HOME/panama-nfs}, else {@code ~/.local/state/panama-nfs}.
     *
     * @return the directory; created by {@link Builder#start()} if missing
     */
    public static Path defaultState() {
        return HandleSecret.defaultState();
    }

    /** Settings of a server; {@link #start()} starts it. */
    public static final class Builder {
        private final Path export;
        private Path state = defaultState();
        private ExportOptions options = ExportOptions.DEFAULTS;
        private InetSocketAddress tcp = new InetSocketAddress(Nfs3.TCP_PORT);
        private final List<InetSocketAddress> rdma = new ArrayList<>();
        private InetSocketAddress mount = new InetSocketAddress(DEFAULT_MOUNT_PORT);
        private boolean rpcbind = true;
        private int credits = 32;
        private Duration rdmaTimeout = Duration.ofSeconds(30);
        private int smallBuffers = 256;
        private int largeBuffers = 32;
        private final List<String> allowed = new ArrayList<>();
        private int threads = 16;
        private Duration resourceWait = Duration.ofSeconds(5);
        private Duration runningWait = Duration.ofSeconds(60);

        private Builder(Path export) {
            this.export = Objects.requireNonNull(export, "export");
        }

        /**
         * Where the handle secret is kept; {@link #defaultState()} by default.
         *
         * @param state the directory holding the secret that signs file handles: keep it private to the server's user
         * @return this builder
         */
        public Builder state(Path state) {
            this.state = Objects.requireNonNull(state, "state");
            return this;
        }

        /**
         * How the export is served: to every address when no {@link #allow} is given, else the base each client
         * block's own options change; {@link ExportOptions#DEFAULTS} by default.
         *
         * @param options the options
         * @return this builder
         */
        public Builder options(ExportOptions options) {
            this.options = Objects.requireNonNull(options, "options");
            return this;
        }

        /**
         * Adds a client block to the export's client list: {@code CIDR} or {@code CIDR(option,...)} with exports(5)
         * option names ({@link ExportOptions#with}), e.g. {@code 10.77.0.0/16} or {@code 10.77.0.9(ro)}. With none,
         * every address may mount. The most specific block holding a client's address decides.
         *
         * @param entry the block and its options
         * @return this builder
         * @throws IllegalArgumentException (at {@link #start}) for a malformed entry
         */
        public Builder allow(String entry) {
            this.allowed.add(Objects.requireNonNull(entry, "entry"));
            return this;
        }

        /**
         * The OS threads procedures run on, each acting as its caller; 16 by default (knfsd starts 8 or 16). At most
         * 64 calls per thread wait for one; a call beyond is answered NFS3ERR_JUKEBOX at once.
         *
         * @param threads 1 to 8192 (knfsd's most, NFSD_MAXSERVS)
         * @return this builder
         * @throws IllegalArgumentException if {@code threads} is outside 1 to 8192
         */
        public Builder threads(int threads) {
            this.threads = OptionRanges.inRange("threads", threads, 1, OptionRanges.MAX_THREADS);
            return this;
        }

        /**
         * How long a call waits for a thread or a data buffer before it is answered NFS3ERR_JUKEBOX (5 s by default,
         * as long as Linux's client waits before it tries again after a JUKEBOX), and how long its transport waits
         * for a procedure that runs (a hung file system) before it gives it up and answers NFS3ERR_JUKEBOX (60 s by
         * default).
         *
         * @param resource how long a call waits for a thread or a data buffer; positive
         * @param running how long a transport waits for a running procedure; positive
         * @return this builder
         * @throws IllegalArgumentException if either is zero, negative, or too long to count in nanoseconds
         */
        public Builder waits(Duration resource, Duration running) {
            this.resourceWait = OptionRanges.positive("waits: resource", resource);
            this.runningWait = OptionRanges.positive("waits: running", running);
            return this;
        }

        /**
         * Where NFS over TCP listens (port 0: any); null for no TCP. Port 2049 on every address by default.
         *
         * @param address the address and port, or null for no NFS over TCP
         * @return this builder
         */
        public Builder tcp(InetSocketAddress address) {
            this.tcp = address;
            return this;
        }

        /**
         * Adds an RPC-over-RDMA listener (an address of an RDMA device, or the wildcard: every device).
         *
         * @param address the address and port (20049 for NFS over RDMA, RFC 8267 section 4)
         * @return this builder
         */
        public Builder rdma(InetSocketAddress address) {
            this.rdma.add(Objects.requireNonNull(address, "address"));
            return this;
        }

        /**
         * Where MOUNT listens over TCP (port 0: any); port {@value #DEFAULT_MOUNT_PORT} by default.
         *
         * @param address the address and port
         * @return this builder
         */
        public Builder mount(InetSocketAddress address) {
            this.mount = Objects.requireNonNull(address, "address");
            return this;
        }

        /**
         * Whether to register NFS and MOUNT with the local rpcbind, if one runs; true by default.
         *
         * @param register whether to register
         * @return this builder
         */
        public Builder rpcbind(boolean register) {
            this.rpcbind = register;
            return this;
        }

        /**
         * RPC-over-RDMA credits per connection (calls in progress); 32 by default.
         *
         * @param credits calls in progress per connection, granted to the client in every reply (RFC 8166 section
         *     3.3): 1 to 16384 (svcrdma's largest max_requests), each a receive buffer pinned per connection
         * @return this builder
         * @throws IllegalArgumentException if {@code credits} is outside 1 to 16384
         */
        public Builder credits(int credits) {
            this.credits = OptionRanges.inRange("credits", credits, 1, OptionRanges.MAX_CREDITS);
            return this;
        }

        /**
         * How long an RDMA transfer or Send may take before the connection is given up; 30 s by default.
         *
         * @param timeout how long; positive
         * @return this builder
         * @throws IllegalArgumentException if {@code timeout} is zero, negative, or too long to count in nanoseconds
         */
        public Builder rdmaTimeout(Duration timeout) {
            this.rdmaTimeout = OptionRanges.positive("rdmaTimeout", timeout);
            return this;
        }

        /**
         * The READ/WRITE buffer pool: {@code small} buffers of 64 KiB and {@code large} of {@link Nfs3Server#MAX_IO};
         * 256 and 32 by default (48 MiB of native memory, what clients can make the server hold for data).
         *
         * @param small the number of 64 KiB buffers, at least 1
         * @param large the number of {@link Nfs3Server#MAX_IO} buffers, at least 1
         * @return this builder
         * @throws IllegalArgumentException if either is below 1
         */
        public Builder buffers(int small, int large) {
            this.smallBuffers = OptionRanges.inRange("buffers: small", small, 1, Integer.MAX_VALUE);
            this.largeBuffers = OptionRanges.inRange("buffers: large", large, 1, Integer.MAX_VALUE);
            return this;
        }

        /**
         * Opens the export and starts listening.
         *
         * @return the running server; {@link NfsServer#close()} stops it
         * @throws IOException if the export cannot be opened, the state directory is unusable, or an address cannot
         *                     be bound
         */
        public NfsServer start() throws IOException {
            return new NfsServer(this);
        }
    }
}
