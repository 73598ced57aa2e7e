package org.panamardma.oncrpc4j;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javax.security.auth.Subject;
import org.dcache.oncrpc4j.grizzly.GrizzlyMemoryManager;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.ReplyQueue;
import org.dcache.oncrpc4j.rpc.RpcAuthError;
import org.dcache.oncrpc4j.rpc.RpcAuthStat;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.rpc.RpcException;
import org.dcache.oncrpc4j.rpc.RpcRejectStatus;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.memory.Buffers;
import org.glassfish.grizzly.memory.MemoryManager;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.AuthFlavor;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.ReplyResources;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.RpcService;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Runs oncrpc4j programs as an {@link RpcService} of the RPC-over-RDMA server: each call, as the server assembled
 * it (inline, Read chunks put back, Long Calls), is decoded by oncrpc4j itself ({@link Xdr} over the call's bytes,
 * no copy; {@link RpcCall#accept()} for the credential) and dispatched to the {@link RpcDispatchable} registered for
 * its program and version, as oncrpc4j's own {@code RpcDispatcher} does; the reply the service hands its transport
 * ({@link RdmaCallTransport}) is encoded into the server's reply by {@link ReplyEncoding}, so the server sends it
 * inline, through the client's Reply chunk or, for a file chunk, by RDMA Write into the client's Write chunk.
 *
 * <p>What is answered how, as oncrpc4j answers it over TCP:
 * <ul>
 *   <li>RPC version other than 2: MSG_DENIED / RPC_MISMATCH (oncrpc4j's {@code RpcMismatchReply});
 *   <li>a credential flavor oncrpc4j does not know: MSG_DENIED / AUTH_ERROR / AUTH_FAILED (its
 *       {@code RpcCredential}); RPCSEC_GSS is refused the same way here (see below);
 *   <li>no program registered for (program, version): PROG_UNAVAIL (oncrpc4j has no PROG_MISMATCH);
 *   <li>what the program's stub answers itself: PROC_UNAVAIL for a procedure it lacks, GARBAGE_ARGS, ...;
 *   <li>the program throws an {@code RpcException}: rejected with its status; an {@code OncRpcException} or other
 *       {@code IOException} (arguments that do not decode): GARBAGE_ARGS; a {@code RuntimeException}: SYSTEM_ERR.
 * </ul>
 * Where oncrpc4j over TCP would send nothing, an RDMA client would keep a credit spent for good (RFC 8166 section
 * 3.3.1), so the bridge answers instead: a credential oncrpc4j cannot decode (oncrpc4j drops the call), and an
 * AUTH_SYS body not shaped as RFC 5531 appendix A says, get AUTH_ERROR / AUTH_BADCRED; a call the program never answers within the reply timeout, an executor that refuses the
 * call, and a file chunk that cannot be read or have memory get SYSTEM_ERR. RPCSEC_GSS needs oncrpc4j's GSS filter,
 * a Grizzly filter the bridge does not run: such calls are refused with AUTH_FAILED rather than handed to the program
 * unverified.
 *
 * <p>Calls are decoded by {@link BoundedXdr}, oncrpc4j's Xdr refusing counts larger than the call before it
 * allocates for them, so that decoding allocates no more than the call's size.
 *
 * <p>Thread-safe. Each call is served on the RPC-over-RDMA server's thread for it (a virtual thread), the program
 * run there or on the given executor; the server thread waits for the reply either way, holding the call's credit.
 */
final class OncRpcBridge implements RpcService, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OncRpcBridge.class);
    /** For a transport that does not know an address: the wildcard address, port 0. */
    private static final InetSocketAddress UNKNOWN = new InetSocketAddress(0);

    private static final MemoryManager<?> MEMORY = GrizzlyMemoryManager.getDefaultMemoryManager();
    /** RPCSEC_GSS (RFC 2203 section 5). */
    private static final int RPCSEC_GSS = 6;

    private final Map<OncRpcProgram, RpcDispatchable> programs;
    private final Executor executor;
    private final Consumer<RpcCall> interceptor;
    private final boolean subjectPropagation;
    private final Duration replyTimeout;
    private final FileChunkMemory fileChunks;
    private final ReplyQueue replyQueue = new ReplyQueue();
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final Set<RdmaCallTransport> waiting = ConcurrentHashMap.newKeySet();
    private final AtomicLong unanswered = new AtomicLong();
    private final AtomicBoolean unansweredWarned = new AtomicBoolean();

    /**
     * @param programs the programs by (number, version)
     * @param executor runs the programs; {@code null} to run them on the server's thread for the call
     * @param interceptor sees each call before its program runs
     * @param subjectPropagation whether a program runs as the call's {@link Subject} ({@link Subject#callAs})
     * @param replyTimeout how long a call waits for its program's reply before it is answered SYSTEM_ERR
     * @param fileChunks where file chunks are read to
     */
    OncRpcBridge(
            Map<OncRpcProgram, RpcDispatchable> programs,
            Executor executor,
            Consumer<RpcCall> interceptor,
            boolean subjectPropagation,
            Duration replyTimeout,
            FileChunkMemory fileChunks) {
        this.programs = new ConcurrentHashMap<>(programs);
        this.executor = executor;
        this.interceptor = Objects.requireNonNull(interceptor, "interceptor");
        this.subjectPropagation = subjectPropagation;
        this.replyTimeout = Objects.requireNonNull(replyTimeout, "replyTimeout");
        this.fileChunks = Objects.requireNonNull(fileChunks, "fileChunks");
    }

    /** Serves {@code program} from now on (in place of the one registered for it before, if any). */
    void register(OncRpcProgram program, RpcDispatchable service) {
        programs.put(Objects.requireNonNull(program, "program"), Objects.requireNonNull(service, "service"));
    }

    /** Stops serving {@code program}: its calls get PROG_UNAVAIL from now on. */
    void unregister(OncRpcProgram program) {
        programs.remove(program);
    }

    /** @return calls answered SYSTEM_ERR because their program did not reply in time */
    long unanswered() {
        return unanswered.get();
    }

    /** @return the file chunk memory budget */
    FileChunkMemory fileChunks() {
        return fileChunks;
    }

    @Override
    public void serve(Incoming incoming, XdrEncoder out) {
        int xid = incoming.header().xid();
        if (!open.get()) {
            systemError(xid, out);
            return;
        }
        RdmaCallTransport transport = new RdmaCallTransport(
                incoming.local().orElse(UNKNOWN), incoming.remote().orElse(UNKNOWN), replyQueue, open);
        waiting.add(transport);
        try {
            Xdr xdr = new BoundedXdr(wrap(incoming.message()), MEMORY);
            xdr.beginDecoding();
            // as oncrpc4j's RpcProtocolFilter: the XID and the message type (CALL: the server decoded the header as a
            // call already), then RpcCall.accept() for the rest of the header
            RpcCall call = new RpcCall(xdr.xdrDecodeInt(), xdr, transport);
            xdr.xdrDecodeInt();
            if (accept(call, incoming.header())) {
                dispatch(call);
            }
            RdmaCallTransport.Reply reply = awaitReply(transport, xid);
            if (reply == null) {
                systemError(xid, out);
                return;
            }
            encode(reply, out, xid);
        } catch (IOException undecodable) {
            // not even the XID and type: the server decoded them already, so this cannot happen; answer anyway
            systemError(xid, out);
        } finally {
            waiting.remove(transport);
        }
    }

    /**
     * Decodes the rest of the call header with oncrpc4j; answers (through the transport) what oncrpc4j refuses.
     *
     * @return whether the call is to be dispatched
     */
    private boolean accept(RpcCall call, org.panamardma.oncrpc.RpcCall header) {
        if (header.rpcVersion() == 2 && header.credential().flavor() == RPCSEC_GSS) {
            call.reject(RpcRejectStatus.AUTH_ERROR, new RpcAuthError(RpcAuthStat.AUTH_FAILED));
            return false;
        }
        if (header.rpcVersion() == 2 && header.credential().flavor() == AuthFlavor.AUTH_SYS) {
            try {
                // oncrpc4j reads AUTH_UNIX field by field from the call, not from the body the credential
                // declares: a body of another shape would leave it reading the verifier and arguments as
                // credential; checked here as this project's server checks it (RFC 5531 appendix A)
                AuthSysParms.from(header.credential());
            } catch (XdrException malformed) {
                call.reject(RpcRejectStatus.AUTH_ERROR, new RpcAuthError(RpcAuthStat.AUTH_BADCRED));
                return false;
            }
        }
        try {
            call.accept();
            return true;
        } catch (RpcException refused) {
            // RPC version mismatch, a flavor oncrpc4j does not know: rejected as oncrpc4j rejects them
            call.reject(refused.getStatus(), refused.getRpcReply());
        } catch (IOException badCredential) {
            // oncrpc4j drops such a call; over RDMA that would keep the client's credit (RFC 8166 section 3.3.1)
            call.reject(RpcRejectStatus.AUTH_ERROR, new RpcAuthError(RpcAuthStat.AUTH_BADCRED));
        }
        LOG.atDebug().log(() -> "xid " + Integer.toHexString(call.getXid()) + ": call header refused");
        return false;
    }

    /** Finds the program and runs it, here or on the executor, as oncrpc4j's RpcDispatcher does. */
    private void dispatch(RpcCall call) {
        RpcDispatchable program = programs.get(new OncRpcProgram(call.getProgram(), call.getProgramVersion()));
        if (program == null) {
            call.failProgramUnavailable();
            return;
        }
        if (executor == null) {
            run(program, call);
            return;
        }
        try {
            executor.execute(() -> run(program, call));
        } catch (RejectedExecutionException e) {
            LOG.warn("the executor refused a call of {}: {}", call, e.getMessage());
            call.failRpcSystem();
        }
    }

    private void run(RpcDispatchable program, RpcCall call) {
        try {
            interceptor.accept(call);
            if (subjectPropagation) {
                try {
                    Subject.callAs(call.getCredential().getSubject(), () -> {
                        program.dispatchOncRpcCall(call);
                        return null;
                    });
                } catch (CompletionException e) {
                    rethrow(e.getCause());
                }
            } else {
                program.dispatchOncRpcCall(call);
            }
        } catch (RpcException e) {
            LOG.atDebug().log(() -> call + " rejected: " + e.getMessage());
            call.reject(e.getStatus(), e.getRpcReply());
        } catch (IOException e) {
            // OncRpcException (BadXdrOncRpcException from retrieveCall) or another I/O failure: GARBAGE_ARGS, as
            // oncrpc4j answers
            LOG.atDebug().log(() -> call + ": " + e.getMessage());
            call.failRpcGarbage();
        } catch (RuntimeException e) {
            LOG.warn("the program failed on {}", call, e);
            call.failRpcSystem();
        } catch (Error e) {
            call.failRpcSystem();
            throw e;
        }
    }

    private static void rethrow(Throwable t) throws IOException {
        if (t instanceof IOException io) {
            throw io;
        }
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("unexpected exception from the program", t);
    }

    /** @return the program's reply, or null if none came within the reply timeout or the bridge closed */
    private RdmaCallTransport.Reply awaitReply(RdmaCallTransport transport, int xid) {
        try {
            return transport.reply().get(replyTimeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            if (!transport.abandon(new TimeoutException("no reply in " + replyTimeout))) {
                return transport.reply().getNow(null); // it came just now
            }
            unanswered.incrementAndGet();
            String line = "xid " + Integer.toHexString(xid) + ": the program did not reply in " + replyTimeout
                    + ", answered SYSTEM_ERR (over RDMA an unanswered call keeps the client's credit)";
            LOG.atLevel(unansweredWarned.compareAndSet(false, true) ? Level.WARN : Level.DEBUG)
                    .log(line);
            return null;
        } catch (ExecutionException closed) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            transport.abandon(e);
            return transport.reply().getNow(null);
        }
    }

    /** Encodes the program's reply; what fails to encode becomes SYSTEM_ERR, as the server's own dispatcher does. */
    private void encode(RdmaCallTransport.Reply reply, XdrEncoder out, int xid) {
        XdrEncoder.Mark start = out.mark();
        try {
            long bytes = ReplyEncoding.encode(reply.head(), reply.file(), out, fileChunks);
            if (ReplyResources.available()) {
                ReplyResources.holdUntilSent(() -> reply.notification().completed((int) bytes));
            } else {
                reply.notification().completed((int) bytes);
            }
            return;
        } catch (FileChunkMemory.Refused | IOException | RuntimeException e) {
            // RuntimeException: XdrException when the reply outgrows what the client can take or the call's memory;
            // rewinding tells the server, which then answers ERR_CHUNK as for its own dispatcher's replies
            out.reset(start);
            LOG.atDebug().log(() -> "xid " + Integer.toHexString(xid) + ": reply not encoded: " + e);
            reply.notification().failed(e);
        }
        systemError(xid, out);
    }

    private static void systemError(int xid, XdrEncoder out) {
        RpcMessageCodec.encode(AcceptedReply.failure(xid, OpaqueAuth.NONE, AcceptStat.SYSTEM_ERR), out);
    }

    /**
     * The call's bytes as a Grizzly buffer for oncrpc4j, without a copy when they are on the heap (the server
     * assembles calls there). oncrpc4j encodes the reply into the call's buffer (RpcCall reuses its Xdr), so the
     * buffer must be writable and the call's bytes are not read again once the program runs: the server does not.
     */
    static Buffer wrap(MemorySegment message) {
        if (message.heapBase().orElse(null) instanceof byte[] array
                && message.byteSize() <= Integer.MAX_VALUE
                && !message.isReadOnly()) {
            return Buffers.wrap(MEMORY, array, Math.toIntExact(message.address()), Math.toIntExact(message.byteSize()));
        }
        return Buffers.wrap(MEMORY, message.toArray(ValueLayout.JAVA_BYTE));
    }

    /** Stops serving: calls waiting for their program's reply are answered SYSTEM_ERR at once, later ones too. */
    @Override
    public void close() {
        open.set(false);
        for (RdmaCallTransport t : waiting) {
            t.abandon(new IOException("the bridge closed"));
        }
        replyQueue.shutdown();
    }
}
