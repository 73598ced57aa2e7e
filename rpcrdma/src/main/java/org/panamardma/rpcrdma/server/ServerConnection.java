package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Phaser;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.connection.ConnectionClosedException;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.Received;

/**
 * One accepted RPC-over-RDMA connection: a virtual thread takes each received message (the connection layer posts
 * its receive buffer again at once, so the receives stay posted ahead of the credits granted) and hands it to a
 * virtual thread of its own, which runs {@link RpcRdmaCallHandler} and Sends the answer from a pre-registered send
 * buffer.
 *
 * <p>When the peer goes (or the connection fails) the reader stops, calls in flight finish or fail on the dead
 * queue pair, the send buffers are deregistered and the connection is closed: nothing of it stays.
 */
final class ServerConnection {
    private static final System.Logger LOG = System.getLogger(ServerConnection.class.getName());

    private final RdmaConnection connection;
    private final RpcRdmaCallHandler handler;
    private final MemoryRegion sendBuffers;
    private final BlockingQueue<Integer> freeSendBuffers;
    private final int sendBufferSize;
    private final Phaser calls = new Phaser(1);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Runnable onClosed;
    private final long timeoutMillis;

    ServerConnection(RdmaConnection connection, RpcDispatcher dispatcher, RpcRdmaHeaderDecoder decoder,
                     ConnectionSettings settings, ServerStatistics statistics, long timeoutMillis,
                     Runnable onClosed) throws RdmaException {
        this.connection = connection;
        this.timeoutMillis = timeoutMillis;
        this.onClosed = onClosed;
        this.sendBufferSize = settings.sendInline();
        // One send buffer per credit, plus one for errors answered beyond the credits.
        int count = settings.maxCredits() + 1;
        this.sendBuffers = connection.protectionDomain().allocate((long) count * sendBufferSize,
                Set.of(Access.LOCAL_WRITE));
        this.freeSendBuffers = new ArrayBlockingQueue<>(count);
        for (int i = 0; i < count; i++) {
            freeSendBuffers.add(i);
        }
        this.handler = new RpcRdmaCallHandler(dispatcher, decoder, settings,
                new VerbsChunkTransfers(connection, timeoutMillis), statistics, ConfigRdmaProgram.INSTANCE);
    }

    ConnectionSettings settings() {
        return handler.settings();
    }

    RdmaConnection rdma() {
        return connection;
    }

    void start() {
        Thread.ofVirtual().name("rpcrdma-server " + connection.name()).start(this::receiveLoop);
    }

    private void receiveLoop() {
        try {
            while (!closed.get()) {
                Received message;
                try {
                    message = connection.receive().get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof ConnectionClosedException)) {
                        LOG.log(System.Logger.Level.WARNING, connection.name() + ": receive failed", e.getCause());
                    }
                    return;
                }
                calls.register();
                try {
                    Thread.ofVirtual().name("rpcrdma-call " + connection.name()).start(() -> serve(message));
                } catch (RuntimeException e) {
                    calls.arriveAndDeregister();
                    throw e;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            close();
        }
    }

    private void serve(Received message) {
        Integer buffer = null;
        try {
            buffer = freeSendBuffers.poll(timeoutMillis, TimeUnit.MILLISECONDS);
            if (buffer == null) {
                // More calls in flight than credits granted plus one (draft section 3.3: the client MUST NOT; the
                // server MAY end the connection). Ending it frees everything; the client sees the disconnect.
                LOG.log(System.Logger.Level.WARNING, connection.name() + ": more calls than credits, closing");
                Thread.ofVirtual().start(this::close);
                return;
            }
            long offset = (long) buffer * sendBufferSize;
            MemorySegment out = sendBuffers.segment().asSlice(offset, sendBufferSize);
            RpcRdmaCallHandler.Outcome outcome = handler.handle(MemorySegment.ofArray(message.data()), out);
            if (outcome.sendLength() > 0) {
                connection.send(sendBuffers, offset, outcome.sendLength()).get(timeoutMillis, TimeUnit.MILLISECONDS);
            }
        } catch (IOException | ExecutionException | TimeoutException e) {
            if (!closed.get() && !connection.isFailed()) {
                LOG.log(System.Logger.Level.WARNING, connection.name() + ": a call failed, closing", e);
            }
            Thread.ofVirtual().start(this::close);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, connection.name() + ": handling a message", e);
            Thread.ofVirtual().start(this::close);
        } finally {
            if (buffer != null) {
                freeSendBuffers.add(buffer);
            }
            calls.arriveAndDeregister();
        }
    }

    /** Closes the connection once the calls in flight have finished (they fail fast on a dead queue pair). */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            if (!connection.isFailed()) {
                // Ended by us (a protocol error): disconnect first, so RDMA operations of calls in flight fail
                // and those calls end.
                connection.close();
            }
            int phase = calls.arrive();
            calls.awaitAdvanceInterruptibly(phase, timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (TimeoutException e) {
            LOG.log(System.Logger.Level.WARNING, connection.name() + ": calls still running at close");
        } finally {
            sendBuffers.close();
            connection.close(); // with its queue pair, receive buffers, CQ and protection domain
            onClosed.run();
        }
    }
}
