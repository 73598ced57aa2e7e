package org.panamardma.oncrpc.tcp;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.panamardma.oncrpc.RecordMarkingDecoder;
import org.panamardma.oncrpc.ReplyResources;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.RpcService;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Serves an {@link RpcService} (an {@link RpcDispatcher}, for one) over TCP with record marking (RFC 5531 section
 * 11); each call reaches the service with the connection's local and remote addresses.
 *
 * <p>Each connection has a virtual thread reading records (at most {@link Builder#maxRecordSize} bytes each) and
 * each call runs on a virtual thread of its own, at most {@link Builder#maxCallsPerConnection} at once per connection
 * (the reader stops reading while that many are running: back-pressure on the client). Replies go out in completion
 * order, each written whole under the connection's write lock, as the XID is what matches them to calls.
 *
 * <p>A reply's inline part is encoded into a buffer of {@link Builder#replyBufferSize} bytes (pooled); results a
 * procedure writes with {@code putEligibleOpaque} are written from the procedure's own memory and do not count
 * against it. Results that do not fit are answered with SYSTEM_ERR by the dispatcher.
 *
 * <p>A connection that breaks the protocol (a record over the limit, a message that is not a decodable call, a peer
 * that closes in the middle of a record) is logged and closed; the server goes on serving the others.
 */
public final class TcpRpcServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TcpRpcServer.class);

    /** Default largest call record accepted: 4 MiB. */
    public static final int DEFAULT_MAX_RECORD_SIZE = 4 << 20;
    /** Default reply buffer (the inline part of a reply): 64 KiB. */
    public static final int DEFAULT_REPLY_BUFFER_SIZE = 64 << 10;
    /** Default number of calls running at once on one connection. */
    public static final int DEFAULT_MAX_CALLS_PER_CONNECTION = 64;

    private final RpcService service;
    private final ServerSocket listener;
    private final int maxRecordSize;
    private final int replyBufferSize;
    private final int maxCallsPerConnection;
    private final Level connectionLogLevel;
    private final BlockingQueue<byte[]> replyBuffers;
    private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread acceptor;

    private TcpRpcServer(Builder b) throws IOException {
        this.service = b.service;
        this.maxRecordSize = b.maxRecordSize;
        this.replyBufferSize = b.replyBufferSize;
        this.maxCallsPerConnection = b.maxCallsPerConnection;
        this.connectionLogLevel = b.logConnections ? Level.INFO : Level.DEBUG;
        this.replyBuffers = new ArrayBlockingQueue<>(Math.max(1, Math.min(256, (64 << 20) / replyBufferSize)));
        this.listener = new ServerSocket();
        try {
            listener.bind(b.address, b.backlog);
        } catch (IOException e) {
            listener.close();
            throw e;
        }
        this.acceptor = Thread.ofVirtual().name("oncrpc-tcp-accept-" + port()).start(this::acceptLoop);
    }

    /** @return a builder for a server running {@code dispatcher} */
    public static Builder builder(RpcDispatcher dispatcher) {
        return new Builder(dispatcher);
    }

    /** @return a builder for a server running {@code service} (which sees each call's addresses) */
    public static Builder builder(RpcService service) {
        return new Builder(service);
    }

    /** @return the address the server listens on, with the port actually bound */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.getLocalSocketAddress();
    }

    /** @return the port actually bound (the one chosen by the system when 0 was asked for) */
    public int port() {
        return listener.getLocalPort();
    }

    /** @return the number of open connections */
    public int connectionCount() {
        return connections.size();
    }

    /** Stops listening and closes every connection; calls still running finish but their replies are dropped. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            listener.close();
        } catch (IOException e) {
            LOG.debug("closing the listener", e);
        }
        for (Connection c : connections) {
            c.close();
        }
        acceptor.interrupt();
    }

    private void acceptLoop() {
        while (!closed.get()) {
            Socket socket;
            try {
                socket = listener.accept();
            } catch (IOException e) {
                if (!closed.get()) {
                    LOG.warn("accepting a connection on port " + port(), e);
                    pause();
                }
                continue;
            }
            try {
                socket.setTcpNoDelay(true);
                Connection connection = new Connection(socket);
                connections.add(connection);
                if (closed.get()) {
                    connection.close();
                } else {
                    connection.start();
                }
            } catch (IOException e) {
                LOG.warn("setting up a connection from " + socket.getRemoteSocketAddress(), e);
                closeQuietly(socket);
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(10);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // nothing more to do
        }
    }

    private byte[] borrowBuffer() {
        byte[] buffer = replyBuffers.poll();
        return buffer != null ? buffer : new byte[replyBufferSize];
    }

    private void returnBuffer(byte[] buffer) {
        replyBuffers.offer(buffer);
    }

    /** One accepted connection: a reader thread and the calls it started. */
    private final class Connection {
        private final Socket socket;
        private final Optional<InetSocketAddress> local;
        private final Optional<InetSocketAddress> remote;
        private final String name;
        private final OutputStream out;
        private final ReentrantLock writeLock = new ReentrantLock();
        private final Semaphore calls = new Semaphore(maxCallsPerConnection);
        private final AtomicBoolean closed = new AtomicBoolean();
        private volatile Thread reader;

        Connection(Socket socket) throws IOException {
            this.socket = socket;
            this.local = Optional.ofNullable((InetSocketAddress) socket.getLocalSocketAddress());
            this.remote = Optional.ofNullable((InetSocketAddress) socket.getRemoteSocketAddress());
            this.name = "oncrpc-tcp " + socket.getRemoteSocketAddress() + " -> " + socket.getLocalPort();
            this.out = new BufferedOutputStream(socket.getOutputStream(), 64 << 10);
        }

        void start() {
            LOG.atLevel(connectionLogLevel).log(() -> name + ": connected");
            reader = Thread.ofVirtual().name(name).start(this::read);
        }

        private void read() {
            RecordMarkingDecoder records = new RecordMarkingDecoder(maxRecordSize);
            byte[] chunk = new byte[64 << 10];
            try {
                InputStream in = socket.getInputStream();
                int n;
                while ((n = in.read(chunk)) >= 0) {
                    records.feed(MemorySegment.ofArray(chunk).asSlice(0, n), this::received);
                }
                if (records.hasPartialRecord()) {
                    LOG.warn(name + ": peer closed the connection in the middle of a record");
                }
            } catch (XdrException e) {
                LOG.warn(name + ": closing, bad record stream: " + e.getMessage());
            } catch (IOException e) {
                if (!closed.get()) {
                    LOG.info(name + ": connection lost: " + e);
                }
            } catch (ClosedWhileWaiting e) {
                // closed while waiting for a call slot
            } finally {
                close();
            }
        }

        private void received(MemorySegment record) {
            byte[] message = record.toArray(ValueLayout.JAVA_BYTE); // the decoder reuses its buffer
            try {
                calls.acquire();
            } catch (InterruptedException e) {
                throw new ClosedWhileWaiting();
            }
            try {
                Thread.ofVirtual().name(name + " call").start(() -> {
                    try {
                        serve(message);
                    } finally {
                        calls.release();
                    }
                });
            } catch (RuntimeException e) {
                calls.release();
                throw e;
            }
        }

        private void serve(byte[] message) {
            XdrDecoder in = new XdrDecoder(MemorySegment.ofArray(message));
            RpcMessage header;
            try {
                header = RpcMessageCodec.decode(in);
            } catch (XdrException e) {
                LOG.warn(name + ": closing, undecodable call header: " + e.getMessage());
                close();
                return;
            }
            if (!(header instanceof RpcCall call)) {
                LOG.warn(name + ": closing, a reply where a call was expected (xid "
                        + Integer.toHexString(header.xid()) + ")");
                close();
                return;
            }
            byte[] buffer = borrowBuffer();
            try {
                // the procedure's results may point into memory it holds until the reply is written (ReplyResources)
                ReplyResources.during(() -> {
                    OutgoingRecord reply = new OutgoingRecord(buffer);
                    service.serve(new RpcService.Incoming(call, MemorySegment.ofArray(message), in, local, remote),
                            reply.encoder());
                    writeLock.lock();
                    try {
                        reply.writeTo(out);
                        out.flush();
                    } finally {
                        writeLock.unlock();
                    }
                    return null;
                });
            } catch (IOException | RuntimeException e) {
                if (!closed.get()) {
                    LOG.warn(name + ": closing, replying to xid "
                            + Integer.toHexString(call.xid()) + " failed", e);
                }
                close();
            } finally {
                returnBuffer(buffer);
            }
        }

        void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            closeQuietly(socket);
            connections.remove(this);
            LOG.atLevel(connectionLogLevel).log(() -> name + ": closed");
            Thread r = reader;
            if (r != null && r != Thread.currentThread()) {
                r.interrupt();
            }
        }
    }

    private static final class ClosedWhileWaiting extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ClosedWhileWaiting() { // interrupted by close() while waiting for a call slot
            super(null, null, false, false);
        }
    }

    /** Settings of a server; {@link #start()} binds and starts it. */
    public static final class Builder {
        private final RpcService service;
        private InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        private int backlog = 128;
        private int maxRecordSize = DEFAULT_MAX_RECORD_SIZE;
        private int replyBufferSize = DEFAULT_REPLY_BUFFER_SIZE;
        private int maxCallsPerConnection = DEFAULT_MAX_CALLS_PER_CONNECTION;
        private boolean logConnections;

        private Builder(RpcService service) {
            this.service = Objects.requireNonNull(service, "service");
        }

        /** Where to listen; the loopback address and a system-chosen port (0) by default. */
        public Builder bind(InetSocketAddress address) {
            this.address = Objects.requireNonNull(address, "address");
            return this;
        }

        /** The listen backlog; 128 by default. */
        public Builder backlog(int backlog) {
            this.backlog = backlog;
            return this;
        }

        /** The largest call record accepted; a connection sending a larger one is closed. */
        public Builder maxRecordSize(int bytes) {
            if (bytes < 64) {
                throw new IllegalArgumentException("maximum record size " + bytes + " cannot hold a call header");
            }
            this.maxRecordSize = bytes;
            return this;
        }

        /** The buffer for a reply's inline part (everything but {@code putEligibleOpaque} data). */
        public Builder replyBufferSize(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("reply buffer of " + bytes + " bytes; at least 1024");
            }
            this.replyBufferSize = bytes;
            return this;
        }

        /** How many calls may run at once on one connection. */
        public Builder maxCallsPerConnection(int calls) {
            if (calls < 1) {
                throw new IllegalArgumentException("at least one call per connection, not " + calls);
            }
            this.maxCallsPerConnection = calls;
            return this;
        }

        /**
         * Whether each connection's start and end is logged at INFO (a server's operator wants to see its clients
         * come and go); at DEBUG otherwise, the default.
         */
        public Builder logConnections(boolean log) {
            this.logConnections = log;
            return this;
        }

        /**
         * Binds and starts accepting connections.
         *
         * @throws IOException if the address cannot be bound
         */
        public TcpRpcServer start() throws IOException {
            return new TcpRpcServer(this);
        }
    }
}
