package org.panamardma.rdmatool;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.QueuePair;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.RdmaServer;
import org.panamardma.verbs.connection.Received;

/**
 * The demo's server ({@link Demo}): one shared memory, registered in each connection's PD. A client's first message asks where it is;
 * the server answers with its address and key, then sends back whatever else the client sends (the SEND part of
 * the demo). The server never speaks first: a message a Soft-iWARP client receives together with the MPA reply
 * fails its connect (siw_cm.c, siw_recv_mpa_rr), and a server cannot know when its client has read that reply
 * until the client sends. The client's first message itself may be left unread by siw until the client sends
 * more; {@link RdmaServer} sees to that on its side (a zero-length READ when it finds the client's bytes
 * unread), so that any client's first message is answered, ours or not.
 */
final class DemoServer implements AutoCloseable {
    /** The server's memory: counter at 0, CmpSwap word at 8, commit word at 64, the data area from 4096. */
    static final int COUNTER = 0;

    static final int COMMIT_WORD = 64;
    static final int DATA = 4096;
    static final int DATA_LENGTH = 4096;
    static final int MEMORY = DATA + DATA_LENGTH;

    final Arena arena = Arena.ofShared();
    final MemorySegment memory = arena.allocate(MEMORY, 4096);
    final RdmaServer server;
    final List<RdmaConnection> connections = new CopyOnWriteArrayList<>();

    DemoServer(InetSocketAddress address, ConnectionOptions options) throws RdmaException {
        server = RdmaServer.listen(address, options, this::accepted);
    }

    private void accepted(RdmaConnection conn) {
        connections.add(conn);
        try {
            QueuePair qp = conn.queuePair();
            Set<Access> access = EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE);
            if (qp.supportsAtomics() || conn.capabilities().agentActive()) {
                access.add(Access.REMOTE_ATOMIC); // the agent checks the same right as the device
            }
            if (qp.supportsFlush()) {
                access.add(Access.FLUSH_GLOBAL);
            }
            MemoryRegion mr = conn.protectionDomain().register(memory, access);
            MemoryRegion advert =
                    conn.protectionDomain().allocate(RemoteMemory.DESCRIPTION, Set.of(Access.LOCAL_WRITE));
            advert.segment().asByteBuffer().putLong(mr.address()).putInt(mr.rkey());
            Thread.ofVirtual().name("demo-serve").start(() -> {
                serve(conn, advert);
                // the client went away (or the server closes): free the connection now, not at the end
                connections.remove(conn);
                conn.close();
            });
        } catch (RdmaException | RuntimeException e) {
            System.err.println("demo server: cannot serve " + conn + ": " + e);
            conn.close();
        }
    }

    /**
     * Answers the client's first message with the memory's description, and echoes every later one; returns
     * when the connection ends.
     */
    private static void serve(RdmaConnection conn, MemoryRegion advert) {
        try {
            conn.receive().get();
            conn.send(advert, 0, RemoteMemory.DESCRIPTION).get();
            MemoryRegion buf = conn.protectionDomain().allocate(conn.receiveBufferSize(), Set.of(Access.LOCAL_WRITE));
            while (true) {
                Received r = conn.receive().get();
                MemorySegment.copy(r.data(), 0, buf.segment(), JAVA_BYTE, 0, r.length());
                conn.send(buf, 0, r.length()).get();
            }
        } catch (ExecutionException | RdmaException | RuntimeException e) {
            // the connection closed: the demo is over for it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        server.close();
        arena.close();
    }
}
