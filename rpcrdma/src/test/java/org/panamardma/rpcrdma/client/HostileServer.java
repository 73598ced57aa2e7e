package org.panamardma.rpcrdma.client;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.ConnectPrivateData;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.RpcRdmaHeader;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderEncoder;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.connection.ConnectionOptions;
import org.panamardma.verbs.connection.RdmaConnection;
import org.panamardma.verbs.connection.RdmaServer;
import org.panamardma.verbs.connection.Received;
import org.panamardma.xdr.XdrEncoder;

/**
 * An RPC-over-RDMA server that does what a test tells it to with the handles a client's calls offer: the mirror of
 * the hostile clients of the server's tests ({@code RawPeer}). It accepts one connection (RFC 8797 private data of
 * 4 KiB both ways, as knfsd), hands over each call with its decoded transport header, RDMA-Writes and -Reads any
 * address under any key, and Sends any bytes as a reply.
 */
final class HostileServer implements AutoCloseable {
    static final Duration WAIT = Duration.ofSeconds(120);
    private static final int INLINE = 4096;
    /** Where RDMA Write sources and Read sinks live: the first half of {@link #memory}. */
    private static final long DATA = 0;
    /** Where Sends are built: the second half. */
    private static final long SENDS = 512 << 10;

    private final RdmaServer listener;
    private final RpcRdmaHeaderDecoder decoder = new RpcRdmaHeaderDecoder();
    private RdmaConnection rdma;
    private MemoryRegion memory;

    private HostileServer(RdmaServer listener) {
        this.listener = listener;
    }

    static HostileServer listen(InetSocketAddress address) throws Exception {
        byte[] ours = ConnectPrivateData.of(INLINE, INLINE, false).encode();
        ConnectionOptions options =
                new ConnectionOptions(64, 64, 2 * INLINE, ConnectionParameters.DEFAULTS.withPrivateData(ours), WAIT);
        return new HostileServer(RdmaServer.listen(address, options));
    }

    InetSocketAddress address() {
        return listener.address();
    }

    /** Takes the client's connection. */
    void accept() throws Exception {
        rdma = listener.accept(WAIT);
        if (rdma == null) {
            throw new AssertionError("no client connected within " + WAIT);
        }
        memory = rdma.protectionDomain().allocate(1 << 20, Set.of(Access.LOCAL_WRITE));
    }

    /** One call as the server sees it. */
    record Call(int xid, RpcRdmaHeader header, ChunkLists chunks) {}

    /** The next message the client sent, decoded. */
    Call nextCall() throws Exception {
        Received r = rdma.receive().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        DecodedHeader d = decoder.decode(MemorySegment.ofArray(r.data()));
        RpcRdmaHeader h = d.header();
        ChunkLists lists = h instanceof RpcRdmaHeader.WithChunks w ? w.chunks() : ChunkLists.NONE;
        return new Call(h.xid(), h, lists);
    }

    /** RDMA-Writes {@code bytes} to {@code address} under {@code rkey}: completes, or fails with the device's status. */
    CompletableFuture<Void> write(long address, int rkey, byte[] bytes) {
        MemorySegment.copy(bytes, 0, memory.segment(), JAVA_BYTE, DATA, bytes.length);
        return rdma.write(memory, DATA, bytes.length, address, rkey);
    }

    /** RDMA-Reads {@code length} bytes at {@code address} under {@code rkey}. */
    CompletableFuture<byte[]> read(long address, int rkey, int length) {
        return rdma.read(memory, DATA, length, address, rkey)
                .thenApply(v -> memory.segment().asSlice(DATA, length).toArray(JAVA_BYTE));
    }

    /** Sends {@code message} as it is. */
    void send(byte[] message) throws Exception {
        MemorySegment.copy(message, 0, memory.segment(), JAVA_BYTE, SENDS, message.length);
        rdma.send(memory, SENDS, message.length).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    /** Whether the connection has failed (an access the client refused ends it: on siw, by a Terminate). */
    boolean connectionFailed() {
        return rdma.isFailed();
    }

    /** A transport header, then (if not null) an RPC message and words of results. */
    static byte[] message(RpcRdmaHeader header, RpcMessage rpc, int... results) {
        byte[] b = new byte[INLINE];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(b));
        RpcRdmaHeaderEncoder.encode(header, out);
        if (rpc != null) {
            RpcMessageCodec.encode(rpc, out);
        }
        for (int w : results) {
            out.putInt(w);
        }
        return out.written(0).toArray(JAVA_BYTE);
    }

    @Override
    public void close() {
        if (rdma != null) {
            rdma.close();
        }
        listener.close();
    }
}
