package org.panamardma.rpcrdma;

import static org.panamardma.testing.Bytes.concat;
import static org.panamardma.testing.Bytes.words;
import static org.panamardma.testing.SeedCorpus.write;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.AuthStat;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RejectedReply;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.rpcrdma.server.EchoProgram;
import org.panamardma.rpcrdma.server.FuzzClientMemory;
import org.panamardma.xdr.XdrEncoder;

/**
 * Writes the seed corpus of rpcrdma's fuzz targets (FUZZING.md): valid messages of every kind each decoder reads,
 * built with the project's own encoders and the golden headers, into the {@code <Class>Inputs/<method>/} directories
 * under src/test/resources that Jazzer's JUnit integration replays in every {@code ./mvnw verify}. Run from the
 * rpcrdma directory after changing a format: {@code ./fuzz.sh seeds}.
 */
public final class FuzzSeeds {
    private static final int XID = 0x5eed_0001;

    private FuzzSeeds() {}

    public static void main(String[] args) throws IOException {
        Path resources = Path.of(args.length > 0 ? args[0] : "src/test/resources");
        Map<String, byte[]> headers = headerSeeds();
        Map<String, byte[]> server = serverSeeds();
        Map<String, byte[]> allTransport = new LinkedHashMap<>(headers);
        allTransport.putAll(server);
        write(resources, "org.panamardma.rpcrdma.RpcRdmaHeaderFuzzTest", "decode", allTransport);
        write(resources, "org.panamardma.rpcrdma.server.RpcRdmaCallHandlerFuzzTest", "handle", allTransport);
        write(resources, "org.panamardma.rpcrdma.server.CallAssemblerFuzzTest", "assemble", allTransport);
        Map<String, byte[]> replies = replySeeds();
        replies.putAll(headers);
        write(resources, "org.panamardma.rpcrdma.client.ReplyDecodingFuzzTest", "decode", replies);
        write(resources, "org.panamardma.rpcrdma.ConnectPrivateDataFuzzTest", "decode", privateDataSeeds());
    }

    // ------------------------------------------------------------------------------------------------ encoders

    static byte[] header(RpcRdmaHeader header) {
        return RpcRdmaHeaderEncoder.toBytes(header);
    }

    static byte[] rpc(RpcMessage message, int... resultWords) {
        byte[] head = new byte[RpcMessageCodec.size(message)];
        RpcMessageCodec.encode(message, new XdrEncoder(MemorySegment.ofArray(head)));
        return concat(head, words(resultWords));
    }

    private static String name(String golden) {
        return golden.toLowerCase().replaceAll("[^a-z0-9]+", "-");
    }

    // ------------------------------------------------------------------------------------------------ seeds

    /** The golden headers of GoldenHeaders, bare and followed by an inline RPC call. */
    static Map<String, byte[]> headerSeeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        for (GoldenHeaders.Golden g : GoldenHeaders.all()) {
            seeds.put("golden-" + name(g.name()), words(g.words()));
        }
        seeds.put(
                "golden-rdma-msg-with-call",
                concat(words(GoldenHeaders.all().get(0).words()), FuzzClientMemory.rpcHeader(XID, EchoProgram.NULL)));
        seeds.put("version-2", words(XID, 2, 8, 0, 0, 0, 0));
        seeds.put("unknown-proc", words(XID, 1, 8, 7));
        seeds.put("rdma-error-unrecognized", words(XID, 1, 8, 4, 9, 1, 2, 3));
        return seeds;
    }

    /** Messages a client sends, whose chunks name {@link FuzzClientMemory}. */
    static Map<String, byte[]> serverSeeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        RdmaSegment sink = FuzzClientMemory.SINK;
        RdmaSegment source = FuzzClientMemory.SOURCE;
        WriteChunk replyChunk = WriteChunk.of(sink);
        seeds.put(
                "msg-inline-null",
                concat(
                        header(new RdmaMsg(XID, 8, ChunkLists.NONE)),
                        FuzzClientMemory.rpcHeader(XID, EchoProgram.NULL)));
        seeds.put(
                "msg-inline-echo",
                concat(
                        header(new RdmaMsg(XID, 8, ChunkLists.NONE)),
                        FuzzClientMemory.echoCall(XID, EchoProgram.ECHO_PLAIN, EchoProgram.pattern(100, 1))));
        seeds.put(
                "msg-write-list",
                concat(
                        header(new RdmaMsg(
                                XID,
                                8,
                                new ChunkLists(
                                        List.of(),
                                        List.of(WriteChunk.of(new RdmaSegment(sink.handle(), 4096, sink.offset()))),
                                        Optional.empty()))),
                        FuzzClientMemory.echoCall(XID, EchoProgram.ECHO, EchoProgram.pattern(2000, 2))));
        seeds.put(
                "msg-reply-chunk",
                concat(
                        header(new RdmaMsg(XID, 8, new ChunkLists(List.of(), List.of(), Optional.of(replyChunk)))),
                        FuzzClientMemory.echoCall(XID, EchoProgram.ECHO_PLAIN, EchoProgram.pattern(2000, 2))));
        int callLength = FuzzClientMemory.call().length;
        seeds.put(
                "nomsg-position-zero",
                header(new RdmaNoMsg(
                        XID,
                        8,
                        new ChunkLists(
                                List.of(ReadSegment.of(0, source.handle(), callLength, source.offset())),
                                List.of(),
                                Optional.of(replyChunk)))));
        seeds.put(
                "nomsg-position-zero-two-segments",
                header(new RdmaNoMsg(
                        XID,
                        8,
                        new ChunkLists(
                                List.of(
                                        ReadSegment.of(0, source.handle(), 40, source.offset()),
                                        ReadSegment.of(0, source.handle(), callLength - 40, source.offset() + 40)),
                                List.of(),
                                Optional.of(replyChunk)))));
        byte[] rpcHeader = FuzzClientMemory.rpcHeader(XID, EchoProgram.ECHO_PLAIN);
        seeds.put(
                "msg-read-chunk",
                concat(
                        header(new RdmaMsg(
                                XID,
                                8,
                                new ChunkLists(
                                        List.of(ReadSegment.of(
                                                rpcHeader.length + 4,
                                                source.handle(),
                                                2000,
                                                source.offset() + FuzzClientMemory.PATTERN_OFFSET)),
                                        List.of(),
                                        Optional.of(replyChunk)))),
                        rpcHeader,
                        words(2000)));
        seeds.put(
                "msg-read-chunk-odd",
                concat(
                        header(new RdmaMsg(
                                XID,
                                8,
                                new ChunkLists(
                                        List.of(ReadSegment.of(
                                                rpcHeader.length + 4,
                                                source.handle(),
                                                1999,
                                                source.offset() + FuzzClientMemory.PATTERN_OFFSET)),
                                        List.of(),
                                        Optional.of(replyChunk)))),
                        rpcHeader,
                        words(1999)));
        RpcCall conf = RpcCall.of(
                XID, ConfigRdma.PROGRAM, ConfigRdma.VERSION, ConfigRdma.CONF_RDMA, OpaqueAuth.NONE, OpaqueAuth.NONE);
        seeds.put("msg-conf-rdma", concat(header(new RdmaMsg(XID, 8, ChunkLists.NONE)), rpc(conf, 4096, 4096, 4)));
        seeds.put(
                "msgp",
                concat(
                        header(new RdmaMsgp(XID, 8, 4, 1024, ChunkLists.NONE)),
                        FuzzClientMemory.rpcHeader(XID, EchoProgram.NULL)));
        seeds.put("done", header(new RdmaDone(XID, 8)));
        return seeds;
    }

    /** Replies a server sends, for a call as ReplyDecodingFuzzTest sets it up. */
    static Map<String, byte[]> replySeeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        int xid = 0x5eed_0003;
        byte[] success = rpc(AcceptedReply.success(xid, OpaqueAuth.NONE), 0, 8, 1, 2);
        seeds.put("reply-msg-success", concat(header(new RdmaMsg(xid, 8, ChunkLists.NONE)), success));
        seeds.put(
                "reply-msg-write-list",
                concat(
                        header(new RdmaMsg(
                                xid,
                                8,
                                new ChunkLists(
                                        List.of(),
                                        List.of(
                                                WriteChunk.of(new RdmaSegment(7, 100, 0x1000)),
                                                WriteChunk.of(new RdmaSegment(8, 0, 0x2000))),
                                        Optional.empty()))),
                        rpc(AcceptedReply.success(xid, OpaqueAuth.NONE), 0, 100)));
        int inChunk = RpcMessageCodec.size(AcceptedReply.success(xid, OpaqueAuth.NONE)) + 8 + 100;
        seeds.put(
                "reply-nomsg-reply-chunk",
                header(new RdmaNoMsg(
                        xid,
                        8,
                        new ChunkLists(
                                List.of(),
                                List.of(),
                                Optional.of(WriteChunk.of(new RdmaSegment(9, inChunk, 0x3000)))))));
        seeds.put(
                "reply-msg-prog-mismatch",
                concat(
                        header(new RdmaMsg(xid, 8, ChunkLists.NONE)),
                        rpc(AcceptedReply.progMismatch(xid, OpaqueAuth.NONE, 2, 3))));
        seeds.put(
                "reply-msg-garbage-args",
                concat(
                        header(new RdmaMsg(xid, 8, ChunkLists.NONE)),
                        rpc(AcceptedReply.failure(xid, OpaqueAuth.NONE, AcceptStat.GARBAGE_ARGS))));
        seeds.put(
                "reply-msg-rpc-mismatch",
                concat(header(new RdmaMsg(xid, 8, ChunkLists.NONE)), rpc(RejectedReply.rpcMismatch(xid, 2, 2))));
        seeds.put(
                "reply-msg-auth-error",
                concat(
                        header(new RdmaMsg(xid, 8, ChunkLists.NONE)),
                        rpc(RejectedReply.authError(xid, AuthStat.values()[1]))));
        seeds.put("reply-err-vers-echoing-2", words(xid, 2, 8, 4, 1, 1, 1));
        seeds.put("reply-err-chunk", header(new RdmaError.ChunkError(xid, 8)));
        return seeds;
    }

    static Map<String, byte[]> privateDataSeeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        seeds.put("linux-4k", ConnectPrivateData.of(4096, 4096, true).encode());
        seeds.put("min-max", ConnectPrivateData.of(1024, 256 << 10, false).encode());
        seeds.put("ib-padded", concat(ConnectPrivateData.of(8192, 1024, true).encode(), new byte[48]));
        seeds.put("short", new byte[] {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 1});
        return seeds;
    }
}
