package org.panamardma.oncrpc4j;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.panamardma.rpcrdma.server.RpcRdmaServer;

/**
 * Builds an {@link OncRpcRdmaSvc} the way oncrpc4j's {@code OncRpcSvcBuilder} builds its TCP and UDP services, with
 * the same names where the meaning is the same:
 *
 * <pre>{@code
 * OncRpcRdmaSvc rdma = new OncRpcRdmaSvcBuilder()
 *         .withBindAddress("10.77.0.2").withPort(20049)
 *         .withRpcService(new OncRpcProgram(100003, 3), nfs)     // the same instance oncrpc4j's TCP svc serves
 *         .withCredits(32)
 *         .withWorkerThreadExecutionService(executor)           // optional: else each call's own virtual thread
 *         .build();
 * rdma.start();
 * }</pre>
 *
 * Everything else the RPC-over-RDMA server bounds (connections, message sizes, memory budgets, inline sizes) is set
 * on its own builder through {@link #withRdmaServer}; its defaults are those of {@link RpcRdmaServer.Builder}.
 */
public final class OncRpcRdmaSvcBuilder {
    private final Map<OncRpcProgram, RpcDispatchable> programs = new LinkedHashMap<>();
    private String bindAddress = "0.0.0.0";
    private int port;
    private int credits = 32;
    private ExecutorService executor;
    private Consumer<RpcCall> callInterceptor = call -> {};
    private boolean subjectPropagation;
    private Duration replyTimeout = Duration.ofSeconds(60);
    private long fileChunkMemory = 256L << 20;
    private Duration fileChunkWait = Duration.ofSeconds(10);
    private Consumer<RpcRdmaServer.Builder> server = b -> {};

    /** A builder with no program, every address, no port yet (give one: {@link #withPort}). */
    public OncRpcRdmaSvcBuilder() {}

    /**
     * Serves {@code service} for {@code program} (its number and version), as oncrpc4j's builder does.
     *
     * @param program the program number and version
     * @param service what answers its calls
     * @return this builder
     */
    public OncRpcRdmaSvcBuilder withRpcService(OncRpcProgram program, RpcDispatchable service) {
        programs.put(Objects.requireNonNull(program, "program"), Objects.requireNonNull(service, "service"));
        return this;
    }

    /**
     * The address to listen on with rdma_cm: the RDMA device is the one whose network interface has it;
     * {@code 0.0.0.0} (the default) listens on every RDMA device.
     *
     * @param address an IPv4 or IPv6 address literal
     * @return this builder
     */
    public OncRpcRdmaSvcBuilder withBindAddress(String address) {
        this.bindAddress = Objects.requireNonNull(address, "address");
        return this;
    }

    /**
     * The port to listen on; required: an RDMA listener cannot tell a client which port rdma_cm chose for 0.
     *
     * @param port 1 to 65535
     * @return this builder
     */
    public OncRpcRdmaSvcBuilder withPort(int port) {
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("a port from 1 to 65535, not " + port);
        }
        this.port = port;
        return this;
    }

    /**
     * The most credits granted per connection (RFC 8166 section 3.3): the calls a client may have in progress at
     * once; 32 by default.
     *
     * @param credits at least 1
     * @return this builder
     */
    public OncRpcRdmaSvcBuilder withCredits(int credits) {
        if (credits < 1) {
            throw new IllegalArgumentException("at least one credit, not " + credits);
        }
        this.credits = credits;
        return this;
    }

    /**
     * Runs the programs on {@code executor} (oncrpc4j's worker thread pool); without one, each call runs on the
     * server's virtual thread for it. The server's thread waits for the reply either way. The executor is the
     * caller's: {@link OncRpcRdmaSvc#stop()} does not shut it down.
     *
     * @param executor runs the programs' calls
     * @return this builder
     */
    public OncRpcRdmaSvcBuilder withWorkerThreadExecutionService(ExecutorService executor) {
        this.executor = Objects.requireNonNull(executor, "executor");
        return this;
    }

    /**
     * Called with each call before its program runs, as oncrpc4j's call interceptor.
     *
     * @param interceptor sees each call first
     * @return this builder
     */
    public OncRpcRdmaSvcBuilder withCallInterceptor(Consumer<RpcCall> interceptor) {
        this.callInterceptor = Objects.requireNonNull(interceptor, "interceptor");
        return this;
    }

    /**
     * Runs each program as the call's {@code Subject}, as oncrpc4j's {@code withSubjectPropagation}.
     *
     * @return this builder
     */
    public OncRpcRdmaSvcBuilder withSubjectPropagation() {
        this.subjectPropagation = true;
        return this;
    }

    /**
     * Runs programs without a {@code Subject} of the call's (the default).
     *
     * @return this builder
     */
    public OncRpcRdmaSvcBuilder withoutSubjectPropagation() {
        this.subjectPropagation = false;
        return this;
    }

    /**
     * How long a call waits for its program's reply; a call still unanswered then is answered SYSTEM_ERR (with one
     * WARN line), because over RDMA a call never answered keeps one of the client's credits for good. 60 s by
     * default.
     *
     * @param timeout positive
     * @return this builder
     */
    public OncRpcRdmaSvcBuilder withReplyTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a positive reply timeout, not " + timeout);
        }
        this.replyTimeout = timeout;
        return this;
    }

    /**
     * What the replies' file chunks ({@code Xdr#xdrEncodeFileChunk}) may hold at once, server-wide, while they are
     * read into memory and RDMA-written (256 MiB by default; also the largest file chunk), and how long a reply waits
     * for memory others hold before it is answered SYSTEM_ERR (10 s by default).
     *
     * @param bytes the file chunks' memory, server-wide; 0 refuses every file chunk
     * @param wait how long a reply waits for that memory
     * @return this builder
     */
    public OncRpcRdmaSvcBuilder withFileChunkMemory(long bytes, Duration wait) {
        if (bytes < 0) {
            throw new IllegalArgumentException("file chunk memory must not be negative: " + bytes);
        }
        this.fileChunkMemory = bytes;
        this.fileChunkWait = Objects.requireNonNull(wait, "wait");
        return this;
    }

    /**
     * Sets more of the RPC-over-RDMA server's limits (connections, message sizes, memory budgets, inline sizes,
     * timeouts) on its builder; the address and credits are this builder's.
     *
     * @param settings called with the server's builder when this one builds
     * @return this builder
     */
    public OncRpcRdmaSvcBuilder withRdmaServer(Consumer<RpcRdmaServer.Builder> settings) {
        this.server = Objects.requireNonNull(settings, "settings");
        return this;
    }

    /**
     * The programs registered so far, as oncrpc4j's builder lists them.
     *
     * @return the programs registered so far
     */
    public Map<OncRpcProgram, RpcDispatchable> getRpcServices() {
        return Map.copyOf(programs);
    }

    /**
     * Builds the service.
     *
     * @return a service not started yet ({@link OncRpcRdmaSvc#start()})
     * @throws IllegalStateException without a port
     */
    public OncRpcRdmaSvc build() {
        if (port == 0) {
            throw new IllegalStateException("withPort(port) first: an RDMA listener needs a known port");
        }
        OncRpcBridge bridge = new OncRpcBridge(
                programs,
                executor,
                callInterceptor,
                subjectPropagation,
                replyTimeout,
                new FileChunkMemory(fileChunkMemory, fileChunkWait));
        InetSocketAddress address = new InetSocketAddress(bindAddress, port);
        return new OncRpcRdmaSvc(bridge, () -> {
            RpcRdmaServer.Builder b =
                    RpcRdmaServer.builder(bridge).bind(address).credits(credits);
            server.accept(b);
            // the address and credits are this builder's, whatever the settings did
            return b.bind(address).credits(credits);
        });
    }
}
