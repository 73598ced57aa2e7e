package org.panamardma.oncrpc.tcp;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import org.panamardma.oncrpc.ReplyResources;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.RpcService;
import org.panamardma.oncrpc.limits.MemoryBudget;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * One connection of a {@link TcpRpcServer}, over any pair of streams (a socket's; a byte array's in the fuzz
 * target): {@link #run()} reads call records ({@link RecordReader}) and hands each call to the executor, at most
 * {@link TcpSettings#maxCallsPerConnection()} at once; each call is dispatched and its reply written whole under the
 * connection's write lock.
 *
 * <p>What it holds is bounded by the settings: a record and a reply buffer per call in progress, counted against the
 * connection's memory budget (within the server's), and its fixed stream buffers. Its deadlines are kept by the
 * server's watchdog through {@link #expired}: a reply write that has not finished within the write timeout (a
 * client that does not read its socket), a record not whole within the read timeout, or a connection idle (no call,
 * no record, no write) for the idle timeout ends the connection; then the calls still running fail at their write
 * and give back their memory, and calls not yet started are not run.
 */
final class TcpConnection {
    private static final Logger LOG = LoggerFactory.getLogger(TcpConnection.class);

    /** Why a connection ended. */
    enum End {
        /** The client closed it, between records. */
        CLIENT_CLOSED,
        /** The connection failed (reset, or the client closed in the middle of a record). */
        LOST,
        /** The client broke the protocol: a record over the limit, a message that is not a call. */
        PROTOCOL_ERROR,
        /** No call, record or write for the idle timeout. */
        IDLE_TIMEOUT,
        /** A record did not arrive whole within the read timeout. */
        READ_TIMEOUT,
        /** A reply could not be written within the write timeout. */
        WRITE_TIMEOUT,
        /** The server closed. */
        SERVER_CLOSED
    }

    private final String name;
    private final OutputStream out;
    private final Runnable abort;
    private final RpcService service;
    private final Optional<InetSocketAddress> local;
    private final Optional<InetSocketAddress> remote;
    private final TcpSettings settings;
    private final MemoryBudget memory;
    private final ReplyBuffers replyBuffers;
    private final Executor calls;
    private final TcpServerStatistics statistics;
    private final RecordReader records;
    private final Semaphore callSlots;
    private final AtomicInteger inProgress = new AtomicInteger();
    private final ReentrantLock writeLock = new ReentrantLock();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Level connectionLogLevel;
    private volatile End end;
    private volatile Runnable onClosed = () -> {};
    private volatile Thread reader;
    /** When the reply being written must be out; 0 when none is being written. */
    private volatile long writeDeadline;

    private volatile long lastActivity = System.nanoTime();

    /**
     * @param name names the connection in log lines
     * @param in the connection's input (buffered by the caller)
     * @param out the connection's output (buffered by the caller)
     * @param abort closes the underlying connection, so that a blocked read or write fails at once
     * @param service runs the calls
     * @param local the address the connection came in on, if known (for the service)
     * @param remote the client's address, if known (for the service)
     * @param settings the limits
     * @param memory the connection's budget, a child of the server's
     * @param replyBuffers where reply buffers come from
     * @param calls runs each call (a virtual thread each in the server)
     * @param statistics the server's counters
     * @param connectionLogLevel the level of the connected/closed lines
     */
    TcpConnection(
            String name,
            InputStream in,
            OutputStream out,
            Runnable abort,
            RpcService service,
            Optional<InetSocketAddress> local,
            Optional<InetSocketAddress> remote,
            TcpSettings settings,
            MemoryBudget memory,
            ReplyBuffers replyBuffers,
            Executor calls,
            TcpServerStatistics statistics,
            Level connectionLogLevel) {
        this.name = name;
        this.out = out;
        this.abort = abort;
        this.service = service;
        this.local = local;
        this.remote = remote;
        this.settings = settings;
        this.memory = memory;
        this.replyBuffers = replyBuffers;
        this.calls = calls;
        this.statistics = statistics;
        this.connectionLogLevel = connectionLogLevel;
        this.callSlots = new Semaphore(settings.maxCallsPerConnection());
        this.records = new RecordReader(
                in,
                settings.maxRecordSize(),
                memory,
                settings.memoryWait().toNanos(),
                settings.readTimeout().toNanos(),
                replyBuffers.size());
    }

    /** Runs {@code action} once the connection has ended (and its reader with it). */
    void onClosed(Runnable action) {
        this.onClosed = action;
    }

    String name() {
        return name;
    }

    /** {@return how the connection ended, or null while it is open} */
    End end() {
        return end;
    }

    /** {@return the calls running now} */
    int callsInProgress() {
        return inProgress.get();
    }

    /** Reads and serves records until the connection ends; on the connection's own thread. */
    void run() {
        reader = Thread.currentThread();
        LOG.atLevel(connectionLogLevel).log(() -> name + ": connected");
        End how = End.LOST;
        try {
            while (!closed.get()) {
                callSlots.acquire();
                RecordReader.Record record;
                try {
                    record = records.next();
                } catch (IOException | InterruptedException | RuntimeException e) {
                    callSlots.release();
                    throw e;
                }
                if (record == null) {
                    callSlots.release();
                    how = End.CLIENT_CLOSED;
                    break;
                }
                lastActivity = System.nanoTime();
                if (record.dropped()) {
                    callSlots.release();
                    statistics.droppedCall();
                    statistics
                            .refusalLog()
                            .warn(() -> name + ": a call of " + record.length() + " bytes dropped:"
                                    + " no memory within "
                                    + settings.memoryWait().toMillis() + " ms (" + memory + "); the"
                                    + " client retransmits it");
                    continue;
                }
                start(record);
            }
        } catch (XdrException e) {
            how = End.PROTOCOL_ERROR;
            statistics.refusalLog().warn(() -> name + ": closing, bad record stream: " + e.getMessage());
        } catch (EOFException e) {
            LOG.atLevel(connectionLogLevel).log(() -> name + ": " + e.getMessage());
        } catch (IOException e) {
            if (!closed.get()) {
                LOG.atLevel(connectionLogLevel).log(() -> name + ": connection lost: " + e);
            }
        } catch (InterruptedException e) {
            // close() interrupts a reader waiting for a call slot or for memory: it gave the reason
        } finally {
            close(how);
        }
    }

    /** Hands a record's call to the executor; the call gives back its slot and memory when it ends. */
    private void start(RecordReader.Record record) {
        inProgress.incrementAndGet();
        statistics.callsInProgress(inProgress.get());
        try {
            calls.execute(() -> serve(record));
        } catch (RuntimeException e) {
            ended(record);
            throw e;
        }
    }

    private void ended(RecordReader.Record record) {
        memory.release(record.charged());
        lastActivity = System.nanoTime();
        inProgress.decrementAndGet();
        callSlots.release();
    }

    private void serve(RecordReader.Record record) {
        try {
            if (closed.get()) {
                return; // the connection ended while the call waited to start: nobody would read its reply
            }
            MemorySegment message = MemorySegment.ofArray(record.data()).asSlice(0, record.length());
            XdrDecoder in = new XdrDecoder(message);
            RpcMessage header;
            try {
                header = RpcMessageCodec.decode(in);
            } catch (XdrException e) {
                statistics.refusalLog().warn(() -> name + ": closing, undecodable call header: " + e.getMessage());
                close(End.PROTOCOL_ERROR);
                return;
            }
            if (!(header instanceof RpcCall call)) {
                statistics
                        .refusalLog()
                        .warn(() -> name + ": closing, a reply where a call was expected (xid "
                                + Integer.toHexString(header.xid()) + ")");
                close(End.PROTOCOL_ERROR);
                return;
            }
            reply(call, message, in);
        } finally {
            ended(record);
        }
    }

    private void reply(RpcCall call, MemorySegment message, XdrDecoder in) {
        byte[] buffer = replyBuffers.borrow();
        try {
            // the procedure's results may point into memory it holds until the reply is written (ReplyResources)
            ReplyResources.during(() -> {
                OutgoingRecord reply = new OutgoingRecord(buffer);
                service.serve(new RpcService.Incoming(call, message, in, local, remote), reply.encoder());
                write(reply);
                return null;
            });
        } catch (IOException e) {
            if (!closed.get()) {
                LOG.atLevel(connectionLogLevel)
                        .log(() -> name + ": closing, writing the reply to xid " + Integer.toHexString(call.xid())
                                + " failed: " + e);
            }
            close(End.LOST);
        } catch (RuntimeException e) {
            if (!closed.get()) {
                LOG.warn(name + ": closing, replying to xid " + Integer.toHexString(call.xid()) + " failed", e);
            }
            close(End.LOST);
        } finally {
            replyBuffers.giveBack(buffer);
        }
    }

    /** Writes one reply whole; the watchdog ends the connection if it takes longer than the write timeout. */
    private void write(OutgoingRecord reply) throws IOException {
        writeLock.lock();
        try {
            if (closed.get()) {
                throw new IOException("connection closed");
            }
            writeDeadline = System.nanoTime() + settings.writeTimeout().toNanos();
            try {
                reply.writeTo(out);
                out.flush();
            } finally {
                writeDeadline = 0;
            }
        } finally {
            writeLock.unlock();
        }
    }

    /**
     * Checks the connection's deadlines at {@code now}.
     *
     * @return the timeout that has run out, or null
     */
    End expired(long now) {
        long w = writeDeadline;
        if (w != 0 && now - w > 0) {
            return End.WRITE_TIMEOUT;
        }
        if (records.overdue(now)) {
            return End.READ_TIMEOUT;
        }
        if (inProgress.get() == 0
                && !records.inRecord()
                && writeDeadline == 0
                && now - lastActivity > settings.idleTimeout().toNanos()) {
            return End.IDLE_TIMEOUT;
        }
        return null;
    }

    /** Ends the connection (once): the streams are closed, so that blocked reads and writes fail at once. */
    void close(End how) {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        end = how;
        // counted before the socket closes: whoever sees the connection end (a client, a test) sees it counted
        statistics.ended(how);
        abort.run();
        switch (how) {
            case IDLE_TIMEOUT ->
                LOG.atLevel(connectionLogLevel)
                        .log(() -> name + ": closed, idle for "
                                + settings.idleTimeout().toMillis() + " ms");
            case READ_TIMEOUT ->
                statistics
                        .refusalLog()
                        .warn(() -> name + ": closed, a record did not arrive" + " whole within the read timeout of "
                                + settings.readTimeout().toMillis() + " ms");
            case WRITE_TIMEOUT ->
                statistics
                        .refusalLog()
                        .warn(() -> name + ": closed, a reply could not be written"
                                + " within the write timeout of "
                                + settings.writeTimeout().toMillis() + " ms (the client does"
                                + " not read its socket)");
            default -> LOG.atLevel(connectionLogLevel).log(() -> name + ": closed");
        }
        Thread r = reader;
        if (r != null && r != Thread.currentThread()) {
            r.interrupt(); // a reader waiting for a call slot or for memory
        }
        onClosed.run();
    }
}
