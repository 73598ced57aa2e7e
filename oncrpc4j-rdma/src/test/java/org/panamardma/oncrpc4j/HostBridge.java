package org.panamardma.oncrpc4j;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.RpcService;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaNoMsg;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.RpcRdmaHeader;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderEncoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderException;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.rpcrdma.server.ConfigRdmaProgram;
import org.panamardma.rpcrdma.server.ConnectionMemory;
import org.panamardma.rpcrdma.server.ConnectionSettings;
import org.panamardma.rpcrdma.server.InMemoryChunkTransfers;
import org.panamardma.rpcrdma.server.RpcRdmaCallHandler;
import org.panamardma.rpcrdma.server.ServerStatistics;
import org.panamardma.testing.Bytes;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;

/**
 * The RPC-over-RDMA server's protocol logic ({@link RpcRdmaCallHandler}) serving an {@link RpcService} on the host,
 * the client's memory played by {@link InMemoryChunkTransfers}: builds transport messages as a client would (inline, with a
 * Read chunk, as a Long Call; offering a Write chunk or a Reply chunk), and rebuilds the reply stream the client
 * would see from the inline part, the Write chunk and the Reply chunk.
 */
final class HostBridge {
    static final InetSocketAddress LOCAL = new InetSocketAddress("10.77.0.2", 20050);
    static final InetSocketAddress REMOTE = new InetSocketAddress("10.77.0.1", 40001);
    static final ConnectionSettings SETTINGS = new ConnectionSettings(4096, 4096, 8, 16 << 20, 16 << 20, 16);
    private static final int TRANSPORT_XID = 0x7a11_0001;

    final InMemoryChunkTransfers client = new InMemoryChunkTransfers();
    final ServerStatistics statistics = new ServerStatistics();
    final RpcRdmaCallHandler handler;

    HostBridge(RpcService service) {
        this(service, SETTINGS, ConnectionMemory.unlimited());
    }

    HostBridge(RpcService service, ConnectionSettings settings, ConnectionMemory memory) {
        this.handler = new RpcRdmaCallHandler(
                service,
                new RpcRdmaHeaderDecoder(),
                settings,
                client,
                statistics,
                ConfigRdmaProgram.INSTANCE,
                memory,
                "host client",
                Optional.of(LOCAL),
                Optional.of(REMOTE));
    }

    /** How a call travels (RFC 8166 section 3.5). */
    enum CallPath {
        /** RDMA_MSG, the whole call inline. */
        INLINE,
        /** RDMA_MSG, the call's last opaque's data in a Read chunk at its position. */
        READ_CHUNK,
        /** RDMA_NOMSG, the whole call in a position-zero Read chunk (a Long Call). */
        POSITION_ZERO
    }

    /** What the client offers for the reply: a Write chunk, a Reply chunk (sizes in bytes), or neither (-1). */
    record Room(int writeChunk, int replyChunk) {
        static final Room NONE = new Room(-1, -1);

        static Room write(int bytes) {
            return new Room(bytes, -1);
        }

        static Room reply(int bytes) {
            return new Room(-1, bytes);
        }
    }

    /**
     * What came back.
     *
     * @param outcome the server's outcome
     * @param header the transport header sent
     * @param reply the RPC reply as the client rebuilds it (inline part, Write chunk data, or the Reply chunk);
     *              null for RDMA_ERROR
     * @param placed the bytes the server RDMA-wrote into the Write chunk (empty if none)
     */
    record Answer(RpcRdmaCallHandler.Outcome outcome, RpcRdmaHeader header, byte[] reply, byte[] placed) {
        /** @return the RPC reply header */
        RpcMessage rpc() {
            return RpcMessageCodec.decode(new XdrDecoder(MemorySegment.ofArray(reply)));
        }

        /** @return the results after the reply header */
        byte[] results() {
            XdrDecoder in = new XdrDecoder(MemorySegment.ofArray(reply));
            RpcMessageCodec.decode(in);
            return in.rest().toArray(JAVA_BYTE);
        }

        /** Decodes the results into {@code into} with oncrpc4j, as an oncrpc4j client does. */
        <T extends XdrAble> T results(T into) {
            Xdr xdr = new Xdr(results());
            xdr.beginDecoding();
            try {
                into.xdrDecode(xdr);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return into;
        }
    }

    /** An RPC call message: our header encoding, then the arguments as oncrpc4j encodes them. */
    static byte[] call(
            int xid, int rpcVersion, int program, int version, int procedure, OpaqueAuth credential, XdrAble args) {
        RpcCall header = new RpcCall(xid, rpcVersion, program, version, procedure, credential, OpaqueAuth.NONE);
        byte[] h = new byte[RpcMessageCodec.size(header)];
        RpcMessageCodec.encode(header, new XdrEncoder(MemorySegment.ofArray(h)));
        return concat(h, xdr(args));
    }

    /** {@code args} as oncrpc4j encodes them. */
    static byte[] xdr(XdrAble args) {
        try (Xdr x = new Xdr(64)) {
            x.beginEncoding();
            args.xdrEncode(x);
            x.endEncoding();
            return x.getBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] concat(byte[]... parts) {
        return Bytes.concat(parts);
    }

    static byte[] header(RpcRdmaHeader h) {
        return RpcRdmaHeaderEncoder.toBytes(h);
    }

    /** Sends {@code rpc} inline. */
    Answer call(byte[] rpc, Room room) throws IOException {
        return call(rpc, CallPath.INLINE, 0, room);
    }

    /**
     * Sends {@code rpc} along {@code path}; for {@link CallPath#READ_CHUNK} the bytes from {@code chunkAt} to the end
     * (the last opaque's data with its roundup) go in a Read chunk at that position, without the roundup, as a
     * client leaves it out (RFC 8166 section 3.4.5.2).
     */
    Answer call(byte[] rpc, CallPath path, int chunkAt, Room room) throws IOException {
        List<WriteChunk> writes =
                room.writeChunk() >= 0 ? List.of(WriteChunk.of(client.registerEmpty(room.writeChunk()))) : List.of();
        Optional<WriteChunk> reply = room.replyChunk() >= 0
                ? Optional.of(WriteChunk.of(client.registerEmpty(room.replyChunk())))
                : Optional.empty();
        byte[] message = switch (path) {
            case INLINE -> concat(header(new RdmaMsg(TRANSPORT_XID, 8, new ChunkLists(List.of(), writes, reply))), rpc);
            case READ_CHUNK -> {
                int length = (int) lastOpaqueLength(rpc, chunkAt);
                RdmaSegment data = client.register(Arrays.copyOfRange(rpc, chunkAt, chunkAt + length));
                yield concat(
                        header(new RdmaMsg(
                                TRANSPORT_XID,
                                8,
                                new ChunkLists(List.of(new ReadSegment(chunkAt, data)), writes, reply))),
                        Arrays.copyOf(rpc, chunkAt));
            }
            case POSITION_ZERO ->
                header(new RdmaNoMsg(
                        TRANSPORT_XID,
                        8,
                        new ChunkLists(List.of(new ReadSegment(0, client.register(rpc))), writes, reply)));
        };
        return send(message, writes, reply);
    }

    /** The data length of the opaque whose data starts at {@code dataAt} (its length word is just before). */
    private static long lastOpaqueLength(byte[] rpc, int dataAt) {
        return new XdrDecoder(MemorySegment.ofArray(rpc).asSlice(dataAt - 4, 4)).getUnsignedInt();
    }

    /** Hands a raw transport message to the server, no chunks of the client's to look at. */
    Answer send(byte[] message) throws IOException {
        return send(message, List.of(), Optional.empty());
    }

    private Answer send(byte[] message, List<WriteChunk> writes, Optional<WriteChunk> reply) throws IOException {
        byte[] send = new byte[SETTINGS.sendInline()];
        RpcRdmaCallHandler.Outcome outcome =
                handler.handle(MemorySegment.ofArray(message), MemorySegment.ofArray(send));
        if (outcome.sendLength() == 0) {
            return new Answer(outcome, null, null, new byte[0]);
        }
        MemorySegment sent = MemorySegment.ofArray(send).asSlice(0, outcome.sendLength());
        DecodedHeader decoded;
        try {
            decoded = new RpcRdmaHeaderDecoder().decode(sent);
        } catch (RpcRdmaHeaderException e) {
            throw new AssertionError("the server sent an undecodable header", e);
        }
        byte[] placed = new byte[0];
        switch (decoded.header()) {
            case RdmaMsg msg -> {
                byte[] inline = decoded.rpcMessage(sent).toArray(JAVA_BYTE);
                if (!msg.chunks().writeList().isEmpty()) {
                    int length = msg.chunks().writeList().get(0).length();
                    placed = Arrays.copyOf(
                            client.contents(writes.get(0).segments().get(0)), length);
                    // the placed item ends the reply (oncrpc4j's file chunk does): put it back after its length word,
                    // with the roundup the server left out of the reduced stream
                    inline = concat(inline, placed, new byte[(4 - (length & 3)) & 3]);
                }
                return new Answer(outcome, msg, inline, placed);
            }
            case RdmaNoMsg noMsg -> {
                int length = noMsg.chunks().replyChunk().orElseThrow().length();
                byte[] stream = Arrays.copyOf(
                        client.contents(reply.orElseThrow().segments().get(0)), length);
                return new Answer(outcome, noMsg, stream, placed);
            }
            default -> {
                return new Answer(outcome, decoded.header(), null, placed);
            }
        }
    }
}
