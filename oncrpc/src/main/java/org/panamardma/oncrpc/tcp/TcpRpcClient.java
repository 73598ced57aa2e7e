package org.panamardma.oncrpc.tcp;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RecordMarkingDecoder;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcClient;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.RpcReply;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;
import org.panamardma.xdr.XdrReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An ONC RPC client over one TCP connection with record marking (RFC 5531 section 11). Any number of calls may be
 * outstanding at once; replies, which may come in any order, are matched to calls by XID (a random start,
 * incremented per call, skipping any still in use).
 *
 * <p>Each call completes its future with the decoded results, or exceptionally with an {@link RpcException}:
 * <ul>
 *   <li>{@link RpcReplyException}: the server answered with an error status, named in the message and typed in
 *       the exception (PROG_UNAVAIL, PROG_MISMATCH with the version range, PROC_UNAVAIL, GARBAGE_ARGS, SYSTEM_ERR,
 *       RPC_MISMATCH, AUTH_ERROR);
 *   <li>{@link RpcTimeoutException}: no reply within the call's timeout (the connection stays up, a late reply is
 *       dropped);
 *   <li>{@link RpcConnectionException}: the connection closed or broke first; every pending call fails with it;
 *   <li>a plain {@link RpcException}: the arguments did not encode or the results did not decode.
 * </ul>
 *
 * <p>No retries: RPC over TCP does not retransmit on a live connection (the transport is reliable, and a duplicate
 * would run a non-idempotent procedure twice); whether to retry a failed or timed-out call, on this connection or a
 * new one, is the caller's decision, as only the caller knows whether the procedure is idempotent.
 *
 * <p>Arguments are encoded on the calling thread into a buffer that starts small and doubles (re-encoding) while
 * they do not fit, up to the maximum record size, so an argument writer must be repeatable; data written with
 * {@code putEligibleOpaque} is sent from its own memory, not copied. The call is sent before {@code call} returns.
 * Results are decoded on the connection's reader thread from a private copy of the reply, so the results may be
 * slices of it ({@code getOpaque}); futures complete on that thread.
 */
public final class TcpRpcClient implements RpcClient {
    private static final Logger LOG = LoggerFactory.getLogger(TcpRpcClient.class);

    /** Default largest record sent or accepted: 4 MiB. */
    public static final int DEFAULT_MAX_RECORD_SIZE = 4 << 20;

    /** Default bound on making the TCP connection: 10 s, then {@link ConnectTimeoutException}. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    private static final int INITIAL_CALL_BUFFER = 8 << 10;

    private final class Pending<T> {
        final int xid;
        final String description;
        final XdrReader<? extends T> results;
        final CompletableFuture<T> future = new CompletableFuture<>();
        volatile ScheduledFuture<?> timer;

        Pending(int xid, String description, XdrReader<? extends T> results) {
            this.xid = xid;
            this.description = description + " (xid 0x" + Integer.toHexString(xid) + ") to " + remote;
            this.results = results;
        }

        void replied(RpcReply reply, XdrDecoder in) {
            if (reply instanceof AcceptedReply a && a.stat() == AcceptStat.SUCCESS) {
                try {
                    future.complete(results.read(in));
                } catch (RuntimeException e) {
                    future.completeExceptionally(
                            new RpcException("the results of " + description + " do not decode: " + e.getMessage(), e));
                }
            } else {
                future.completeExceptionally(new RpcReplyException(reply, description));
            }
        }

        void fail(Throwable why) {
            future.completeExceptionally(why);
        }

        void stopTimer() {
            ScheduledFuture<?> t = timer;
            if (t != null) {
                t.cancel(false);
            }
        }
    }

    private final Socket socket;
    private final InetSocketAddress remote;
    private final int maxRecordSize;
    private final OutputStream out;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Map<Integer, Pending<?>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger nextXid =
            new AtomicInteger(ThreadLocalRandom.current().nextInt());
    private final ScheduledThreadPoolExecutor timers;
    private final Thread reader;
    private volatile RpcConnectionException closedBecause;

    private TcpRpcClient(Socket socket, int maxRecordSize) throws IOException {
        this.socket = socket;
        this.remote = (InetSocketAddress) socket.getRemoteSocketAddress();
        this.maxRecordSize = maxRecordSize;
        this.out = new BufferedOutputStream(socket.getOutputStream(), 64 << 10);
        this.timers = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "oncrpc-tcp-timeouts " + remote);
            t.setDaemon(true);
            return t;
        });
        timers.setRemoveOnCancelPolicy(true);
        InputStream in = socket.getInputStream();
        this.reader = Thread.ofVirtual().name("oncrpc-tcp-client " + remote).start(() -> read(in));
    }

    /**
     * Connects to {@code host:port} with the default maximum record size and connect timeout.
     *
     * @param host the server's host name or address
     * @param port the server's TCP port
     * @return a connected client; its reader thread runs until {@link #close()}
     * @throws ConnectTimeoutException if the server does not answer within {@link #DEFAULT_CONNECT_TIMEOUT}
     * @throws IOException if the connection cannot be made
     */
    public static TcpRpcClient connect(String host, int port) throws IOException {
        return connect(new InetSocketAddress(host, port), DEFAULT_MAX_RECORD_SIZE);
    }

    /**
     * Connects to a server within {@link #DEFAULT_CONNECT_TIMEOUT}.
     *
     * @param address the server
     * @param maxRecordSize the largest call this client sends and the largest reply it accepts (a larger reply
     *                      breaks the connection, as the record stream cannot be resynchronized)
     * @return a connected client; its reader thread runs until {@link #close()}
     * @throws ConnectTimeoutException if the server does not answer within {@link #DEFAULT_CONNECT_TIMEOUT}
     * @throws IOException if the connection cannot be made
     */
    public static TcpRpcClient connect(InetSocketAddress address, int maxRecordSize) throws IOException {
        return connect(address, null, maxRecordSize);
    }

    /**
     * Connects to a server from a given local address and port within {@link #DEFAULT_CONNECT_TIMEOUT}; see
     * {@link #connect(InetSocketAddress, InetSocketAddress, int, Duration)}.
     *
     * @param address the server
     * @param local where to bind the socket before connecting; null for any
     * @param maxRecordSize the largest call sent and reply accepted
     * @return a connected client; its reader thread runs until {@link #close()}
     * @throws ConnectTimeoutException if the server does not answer within {@link #DEFAULT_CONNECT_TIMEOUT}
     * @throws IOException if the socket cannot be bound there, or the connection cannot be made
     */
    public static TcpRpcClient connect(InetSocketAddress address, InetSocketAddress local, int maxRecordSize)
            throws IOException {
        return connect(address, local, maxRecordSize, DEFAULT_CONNECT_TIMEOUT);
    }

    /**
     * Connects to a server from a given local address and port (a port below 1024, which servers with the
     * {@code secure} export option require, needs root or CAP_NET_BIND_SERVICE), waiting at most
     * {@code connectTimeout} for the TCP handshake.
     *
     * @param address the server
     * @param local where to bind the socket before connecting; null for any
     * @param maxRecordSize the largest call sent and reply accepted
     * @param connectTimeout how long the server may take to answer (positive; rounded up to milliseconds)
     * @return a connected client; its reader thread runs until {@link #close()}
     * @throws ConnectTimeoutException if the server does not answer within {@code connectTimeout}
     * @throws IOException if the socket cannot be bound there, or the connection cannot be made (refused:
     *                     {@link java.net.ConnectException})
     * @throws IllegalArgumentException if {@code maxRecordSize} is below 64 bytes, too small for a call header, or
     *                                  {@code connectTimeout} is not positive
     */
    public static TcpRpcClient connect(
            InetSocketAddress address, InetSocketAddress local, int maxRecordSize, Duration connectTimeout)
            throws IOException {
        if (maxRecordSize < 64) {
            throw new IllegalArgumentException("maximum record size " + maxRecordSize + " cannot hold a header");
        }
        Socket socket = ClientSocket.connect(address, local, connectTimeout);
        try {
            return new TcpRpcClient(socket, maxRecordSize);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** {@return the server's address} */
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    /** {@return {@code tcp://host:port} of the server} */
    @Override
    public String describe() {
        String host = remote.getHostString();
        return "tcp://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + remote.getPort();
    }

    /** {@return whether the connection is still usable} */
    public boolean isOpen() {
        return closedBecause == null;
    }

    /** {@return the number of calls waiting for their replies} */
    public int pendingCalls() {
        return pending.size();
    }

    /**
     * A call with AUTH_NONE credentials; see
     * {@link #call(int, int, int, OpaqueAuth, XdrEncodable, XdrReader, Duration)}.
     *
     * @param <T> the results type
     * @param program the program number
     * @param version the program version
     * @param procedure the procedure number
     * @param arguments encodes the arguments; may run more than once, so it must be repeatable
     * @param results decodes the results of a SUCCESS reply, on the reader thread
     * @param timeout how long to wait for the reply; the future fails with {@link RpcTimeoutException} then
     * @return the decoded results, or the exceptions {@link org.panamardma.oncrpc.RpcClient} lists
     */
    public <T> CompletableFuture<T> call(
            int program,
            int version,
            int procedure,
            XdrEncodable arguments,
            XdrReader<? extends T> results,
            Duration timeout) {
        return call(program, version, procedure, OpaqueAuth.NONE, arguments, results, timeout);
    }

    /**
     * Sends a call and returns at once with its future (the call has been written when this returns, or the future
     * has already failed).
     *
     * @param program the program number
     * @param version the program version
     * @param procedure the procedure number
     * @param credential the credential (the verifier is AUTH_NONE)
     * @param arguments encodes the arguments; may run more than once (see the class comment)
     * @param results decodes the results of a SUCCESS reply
     * @param timeout how long to wait for the reply
     * @return the results, or an {@link RpcException} as the class comment lists
     */
    @Override
    public <T> CompletableFuture<T> call(
            int program,
            int version,
            int procedure,
            OpaqueAuth credential,
            XdrEncodable arguments,
            XdrReader<? extends T> results,
            Duration timeout) {
        Objects.requireNonNull(credential, "credential");
        Objects.requireNonNull(arguments, "arguments");
        Objects.requireNonNull(results, "results");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, not " + timeout);
        }
        String description = "call " + Integer.toUnsignedString(program) + "." + Integer.toUnsignedString(version) + "."
                + Integer.toUnsignedString(procedure);
        RpcConnectionException down = closedBecause;
        if (down != null) {
            return CompletableFuture.failedFuture(new RpcConnectionException(
                    description + " to " + remote + " not sent: " + down.getMessage(), down));
        }
        Pending<T> call = register(description, results);
        OutgoingRecord record;
        try {
            record = encode(RpcCall.of(call.xid, program, version, procedure, credential, OpaqueAuth.NONE), arguments);
        } catch (RuntimeException e) {
            pending.remove(call.xid, call);
            call.fail(
                    new RpcException("the arguments of " + call.description + " do not encode: " + e.getMessage(), e));
            return call.future;
        }
        try {
            call.timer = timers.schedule(
                    () -> {
                        if (pending.remove(call.xid, call)) {
                            call.fail(new RpcTimeoutException(call.description, timeout));
                        }
                    },
                    timeout.toNanos(),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) { // the connection went down meanwhile
            pending.remove(call.xid, call);
            call.fail(closedBecause);
            return call.future;
        }
        if (call.future.isDone()) {
            call.stopTimer();
        }
        writeLock.lock();
        try {
            if (closedBecause == null) {
                record.writeTo(out);
                out.flush();
            }
        } catch (IOException e) {
            fail(new RpcConnectionException("connection to " + remote + " broke sending " + call.description, e));
        } finally {
            writeLock.unlock();
        }
        down = closedBecause;
        if (down != null && pending.remove(call.xid, call)) { // closed before the call was registered or sent
            call.stopTimer();
            call.fail(down);
        }
        return call.future;
    }

    /**
     * {@link #call(int, int, int, OpaqueAuth, XdrEncodable, XdrReader, Duration)}, waiting for the results.
     *
     * @throws RpcException as the class comment lists
     * @throws InterruptedException if interrupted while waiting (the call stays pending until its timeout)
     */
    @Override
    public <T> T invoke(
            int program,
            int version,
            int procedure,
            OpaqueAuth credential,
            XdrEncodable arguments,
            XdrReader<? extends T> results,
            Duration timeout)
            throws RpcException, InterruptedException {
        try {
            return call(program, version, procedure, credential, arguments, results, timeout)
                    .get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RpcException rpc) {
                throw rpc;
            }
            throw new RpcException(e.getCause().toString(), e.getCause());
        } catch (CancellationException e) {
            throw new RpcException("call cancelled", e);
        }
    }

    private <T> Pending<T> register(String description, XdrReader<? extends T> results) {
        while (true) {
            Pending<T> call = new Pending<>(nextXid.getAndIncrement(), description, results);
            if (pending.putIfAbsent(call.xid, call) == null) {
                return call;
            }
        }
    }

    private OutgoingRecord encode(RpcCall header, XdrEncodable arguments) {
        int limit = maxRecordSize + 4; // the buffer also holds the record marker
        int size = Math.min(INITIAL_CALL_BUFFER, limit);
        while (true) {
            OutgoingRecord record = new OutgoingRecord(new byte[size]);
            try {
                XdrEncoder encoder = record.encoder();
                RpcMessageCodec.encode(header, encoder);
                arguments.encodeTo(encoder);
            } catch (XdrException e) {
                if (e.reason() == XdrException.Reason.NO_SPACE && size < limit) {
                    size = (int) Math.min((long) size * 2, limit);
                    continue;
                }
                throw e;
            }
            if (record.messageLength() > maxRecordSize) {
                throw new XdrException(
                        XdrException.Reason.LIMIT_EXCEEDED,
                        0,
                        "call of " + record.messageLength() + " bytes exceeds the maximum record size "
                                + maxRecordSize);
            }
            return record;
        }
    }

    private void read(InputStream in) {
        RecordMarkingDecoder records = new RecordMarkingDecoder(maxRecordSize);
        byte[] chunk = new byte[64 << 10];
        try {
            int n;
            while ((n = in.read(chunk)) >= 0) {
                records.feed(MemorySegment.ofArray(chunk).asSlice(0, n), this::received);
            }
            fail(new RpcConnectionException("connection closed by " + remote
                    + (records.hasPartialRecord() ? " in the middle of a reply" : "")));
        } catch (XdrException e) {
            fail(new RpcConnectionException("reply stream from " + remote + " broken: " + e.getMessage(), e));
        } catch (IOException e) {
            fail(new RpcConnectionException("connection to " + remote + " lost: " + e.getMessage(), e));
        }
    }

    private void received(MemorySegment record) {
        XdrDecoder in = new XdrDecoder(MemorySegment.ofArray(record.toArray(ValueLayout.JAVA_BYTE)));
        RpcMessage message;
        try {
            message = RpcMessageCodec.decode(in);
        } catch (XdrException e) {
            if (record.byteSize() >= 4) {
                int xid = new XdrDecoder(record).getInt();
                Pending<?> call = pending.remove(xid);
                if (call != null) {
                    call.stopTimer();
                    call.fail(new RpcException(
                            "the reply to " + call.description + " does not decode: " + e.getMessage(), e));
                    return;
                }
            }
            LOG.warn("dropping an undecodable message from " + remote + ": " + e.getMessage());
            return;
        }
        if (!(message instanceof RpcReply reply)) {
            LOG.warn("dropping a call from " + remote + " (no backchannel service)");
            return;
        }
        Pending<?> call = pending.remove(reply.xid());
        if (call == null) {
            LOG.debug(
                    "dropping a reply from {} to xid 0x{}: no such call pending (timed out?)",
                    remote,
                    Integer.toHexString(reply.xid()));
            return;
        }
        call.stopTimer();
        call.replied(reply, in);
    }

    /** Marks the connection down, closes it and fails every pending call. */
    private void fail(RpcConnectionException why) {
        synchronized (this) {
            if (closedBecause == null) {
                closedBecause = why;
            }
        }
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        RpcConnectionException cause = closedBecause;
        for (Pending<?> call : List.copyOf(pending.values())) {
            if (pending.remove(call.xid, call)) {
                call.stopTimer();
                call.fail(cause);
            }
        }
        timers.shutdown();
    }

    /** Closes the connection; pending calls fail with an {@link RpcConnectionException}. */
    @Override
    public void close() {
        fail(new RpcConnectionException("client closed the connection to " + remote));
        try {
            reader.join(Duration.ofSeconds(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
