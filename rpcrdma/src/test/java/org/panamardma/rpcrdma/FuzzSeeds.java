package org.panamardma.rpcrdma;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.AuthFlavor;
import org.panamardma.oncrpc.AuthStat;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RecordMarking;
import org.panamardma.oncrpc.RejectedReply;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.rpcrdma.server.EchoProgram;
import org.panamardma.rpcrdma.server.FuzzClientMemory;
import org.panamardma.xdr.XdrEncoder;

/**
 * Writes the seed corpus of the fuzz targets (FUZZING.md): valid messages of every kind each decoder reads, built
 * with the project's own encoders and the golden headers, into the {@code <Class>Inputs/<method>/} directories
 * under src/test/resources that Jazzer's JUnit integration replays in every {@code ./mvnw verify}. Run from the
 * rpcrdma directory after changing a format: {@code ./fuzz.sh seeds}.
 */
public final class FuzzSeeds {
    private static final int XID = 0x5eed_0001;

    private FuzzSeeds() {
    }

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
        write(resources, "org.panamardma.oncrpc.RpcMessageFuzzTest", "decode", rpcSeeds());
        write(resources, "org.panamardma.oncrpc.RecordMarkingFuzzTest", "feed", recordSeeds());
        write(resources, "org.panamardma.xdr.XdrDecoderFuzzTest", "getters", xdrSeeds());
        write(resources, "org.panamardma.oncrpc.tcp.TcpConnectionFuzzTest", "stream", tcpSeeds());
    }

    private static void write(Path resources, String testClass, String method, Map<String, byte[]> seeds) {
        int dot = testClass.lastIndexOf('.');
        Path dir = resources.resolve(testClass.substring(0, dot).replace('.', '/'))
                .resolve(testClass.substring(dot + 1) + "Inputs").resolve(method);
        try {
            Files.createDirectories(dir);
            for (Map.Entry<String, byte[]> seed : seeds.entrySet()) {
                Files.write(dir.resolve("seed-" + seed.getKey()), seed.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.println(dir + ": " + seeds.size() + " seeds");
    }

    // ------------------------------------------------------------------------------------------------ encoders

    static byte[] words(int... words) {
        byte[] b = new byte[4 * words.length];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(b));
        for (int w : words) {
            out.putInt(w);
        }
        return b;
    }

    static byte[] header(RpcRdmaHeader header) {
        byte[] b = new byte[RpcRdmaHeaderEncoder.size(header)];
        RpcRdmaHeaderEncoder.encode(header, new XdrEncoder(MemorySegment.ofArray(b)));
        return b;
    }

    static byte[] rpc(RpcMessage message, int... resultWords) {
        byte[] head = new byte[RpcMessageCodec.size(message)];
        RpcMessageCodec.encode(message, new XdrEncoder(MemorySegment.ofArray(head)));
        return concat(head, words(resultWords));
    }

    static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
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
        seeds.put("golden-rdma-msg-with-call", concat(words(GoldenHeaders.all().get(0).words()),
                FuzzClientMemory.rpcHeader(XID, EchoProgram.NULL)));
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
        seeds.put("msg-inline-null", concat(header(new RdmaMsg(XID, 8, ChunkLists.NONE)),
                FuzzClientMemory.rpcHeader(XID, EchoProgram.NULL)));
        seeds.put("msg-inline-echo", concat(header(new RdmaMsg(XID, 8, ChunkLists.NONE)),
                FuzzClientMemory.echoCall(XID, EchoProgram.ECHO_PLAIN, EchoProgram.pattern(100, 1))));
        seeds.put("msg-write-list", concat(header(new RdmaMsg(XID, 8, new ChunkLists(List.of(),
                        List.of(WriteChunk.of(new RdmaSegment(sink.handle(), 4096, sink.offset()))), Optional.empty()))),
                FuzzClientMemory.echoCall(XID, EchoProgram.ECHO, EchoProgram.pattern(2000, 2))));
        seeds.put("msg-reply-chunk", concat(header(new RdmaMsg(XID, 8, new ChunkLists(List.of(), List.of(),
                        Optional.of(replyChunk)))),
                FuzzClientMemory.echoCall(XID, EchoProgram.ECHO_PLAIN, EchoProgram.pattern(2000, 2))));
        int callLength = FuzzClientMemory.call().length;
        seeds.put("nomsg-position-zero", header(new RdmaNoMsg(XID, 8, new ChunkLists(
                List.of(ReadSegment.of(0, source.handle(), callLength, source.offset())), List.of(),
                Optional.of(replyChunk)))));
        seeds.put("nomsg-position-zero-two-segments", header(new RdmaNoMsg(XID, 8, new ChunkLists(
                List.of(ReadSegment.of(0, source.handle(), 40, source.offset()),
                        ReadSegment.of(0, source.handle(), callLength - 40, source.offset() + 40)), List.of(),
                Optional.of(replyChunk)))));
        byte[] rpcHeader = FuzzClientMemory.rpcHeader(XID, EchoProgram.ECHO_PLAIN);
        seeds.put("msg-read-chunk", concat(header(new RdmaMsg(XID, 8, new ChunkLists(
                List.of(ReadSegment.of(rpcHeader.length + 4, source.handle(), 2000,
                        source.offset() + FuzzClientMemory.PATTERN_OFFSET)), List.of(), Optional.of(replyChunk)))),
                rpcHeader, words(2000)));
        seeds.put("msg-read-chunk-odd", concat(header(new RdmaMsg(XID, 8, new ChunkLists(
                List.of(ReadSegment.of(rpcHeader.length + 4, source.handle(), 1999,
                        source.offset() + FuzzClientMemory.PATTERN_OFFSET)), List.of(), Optional.of(replyChunk)))),
                rpcHeader, words(1999)));
        RpcCall conf = RpcCall.of(XID, ConfigRdma.PROGRAM, ConfigRdma.VERSION, ConfigRdma.CONF_RDMA,
                OpaqueAuth.NONE, OpaqueAuth.NONE);
        seeds.put("msg-conf-rdma", concat(header(new RdmaMsg(XID, 8, ChunkLists.NONE)),
                rpc(conf, 4096, 4096, 4)));
        seeds.put("msgp", concat(header(new RdmaMsgp(XID, 8, 4, 1024, ChunkLists.NONE)),
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
        seeds.put("reply-msg-write-list", concat(header(new RdmaMsg(xid, 8, new ChunkLists(List.of(),
                List.of(WriteChunk.of(new RdmaSegment(7, 100, 0x1000)), WriteChunk.of(new RdmaSegment(8, 0, 0x2000))),
                Optional.empty()))), rpc(AcceptedReply.success(xid, OpaqueAuth.NONE), 0, 100)));
        int inChunk = RpcMessageCodec.size(AcceptedReply.success(xid, OpaqueAuth.NONE)) + 8 + 100;
        seeds.put("reply-nomsg-reply-chunk", header(new RdmaNoMsg(xid, 8, new ChunkLists(List.of(), List.of(),
                Optional.of(WriteChunk.of(new RdmaSegment(9, inChunk, 0x3000)))))));
        seeds.put("reply-msg-prog-mismatch", concat(header(new RdmaMsg(xid, 8, ChunkLists.NONE)),
                rpc(AcceptedReply.progMismatch(xid, OpaqueAuth.NONE, 2, 3))));
        seeds.put("reply-msg-garbage-args", concat(header(new RdmaMsg(xid, 8, ChunkLists.NONE)),
                rpc(AcceptedReply.failure(xid, OpaqueAuth.NONE, AcceptStat.GARBAGE_ARGS))));
        seeds.put("reply-msg-rpc-mismatch", concat(header(new RdmaMsg(xid, 8, ChunkLists.NONE)),
                rpc(RejectedReply.rpcMismatch(xid, 2, 2))));
        seeds.put("reply-msg-auth-error", concat(header(new RdmaMsg(xid, 8, ChunkLists.NONE)),
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

    static Map<String, byte[]> rpcSeeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        AuthSysParms parms = new AuthSysParms(0x1234, "client.example", 1000, 100, List.of(4, 24, 27, 30));
        seeds.put("call-auth-none", rpc(RpcCall.of(XID, 100003, 3, 1, OpaqueAuth.NONE, OpaqueAuth.NONE), 1, 2));
        seeds.put("call-auth-sys", rpc(RpcCall.of(XID, 100003, 3, 1, parms.toOpaqueAuth(), OpaqueAuth.NONE)));
        seeds.put("call-rpcvers-3", rpc(new RpcCall(XID, 3, 100003, 3, 0, OpaqueAuth.NONE, OpaqueAuth.NONE)));
        seeds.put("reply-success", rpc(AcceptedReply.success(XID, OpaqueAuth.NONE), 0));
        seeds.put("reply-prog-mismatch", rpc(AcceptedReply.progMismatch(XID, OpaqueAuth.NONE, 2, 4)));
        seeds.put("reply-rpc-mismatch", rpc(RejectedReply.rpcMismatch(XID, 2, 2)));
        seeds.put("reply-auth-error", rpc(RejectedReply.authError(XID, AuthStat.values()[1])));
        byte[] auth = new byte[parms.toOpaqueAuth().xdrSize()];
        parms.toOpaqueAuth().encodeTo(new XdrEncoder(MemorySegment.ofArray(auth)));
        seeds.put("opaque-auth-sys", auth);
        seeds.put("opaque-auth-short", rpc(RpcCall.of(XID, 1, 1, 1, new OpaqueAuth(AuthFlavor.AUTH_SYS,
                new byte[] {1, 2, 3, 4, 5}), OpaqueAuth.NONE)));
        return seeds;
    }

    /** One record of a single fragment. */
    static byte[] record(byte[] body) {
        return concat(words(RecordMarking.header(true, body.length)), body);
    }

    /**
     * Streams a client sends on one TCP connection (TcpConnectionFuzzTest: program 400126, procedures NULL, ECHO,
     * ECHO_INLINE, FAIL; records up to 64 KiB; a connection budget of 16 KiB besides the 4 KiB reply buffer).
     */
    static Map<String, byte[]> tcpSeeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        int prog = 400_126;
        byte[] nullCall = record(rpc(RpcCall.of(XID, prog, 1, 0, OpaqueAuth.NONE, OpaqueAuth.NONE)));
        byte[] echo = record(rpc(RpcCall.of(XID + 1, prog, 1, 1, OpaqueAuth.NONE, OpaqueAuth.NONE), 8, 0x01020304,
                0x05060708));
        byte[] echoInline = record(rpc(RpcCall.of(XID + 2, prog, 1, 2, OpaqueAuth.NONE, OpaqueAuth.NONE), 4, 7));
        byte[] fail = record(rpc(RpcCall.of(XID + 3, prog, 1, 3, OpaqueAuth.NONE, OpaqueAuth.NONE)));
        AuthSysParms parms = new AuthSysParms(0x1234, "client.example", 1000, 100, List.of(4, 24));
        byte[] authSys = record(rpc(RpcCall.of(XID + 4, prog, 1, 0, parms.toOpaqueAuth(), OpaqueAuth.NONE)));
        seeds.put("null", nullCall);
        seeds.put("calls-of-every-procedure", concat(nullCall, echo, echoInline, fail, authSys));
        byte[] call = rpc(RpcCall.of(XID + 5, prog, 1, 0, OpaqueAuth.NONE, OpaqueAuth.NONE));
        seeds.put("two-fragments", concat(words(RecordMarking.header(false, 12)), java.util.Arrays.copyOf(call, 12),
                words(RecordMarking.header(true, call.length - 12)),
                java.util.Arrays.copyOfRange(call, 12, call.length)));
        byte[] big = new byte[20 << 10];
        seeds.put("echo-beyond-the-connection-budget-then-null", concat(record(concat(
                rpc(RpcCall.of(XID + 6, prog, 1, 1, OpaqueAuth.NONE, OpaqueAuth.NONE), big.length), big)), nullCall));
        seeds.put("echo-inline-beyond-the-reply-buffer", record(concat(
                rpc(RpcCall.of(XID + 7, prog, 1, 2, OpaqueAuth.NONE, OpaqueAuth.NONE), 8192), new byte[8192])));
        seeds.put("record-over-the-limit", concat(nullCall, words(RecordMarking.header(true, (64 << 10) + 1))));
        seeds.put("a-reply-for-a-call", concat(record(rpc(AcceptedReply.success(XID, OpaqueAuth.NONE))), nullCall));
        seeds.put("garbage-record", concat(record(words(1, 2, 3)), nullCall));
        seeds.put("ends-mid-record", concat(nullCall, words(RecordMarking.header(true, 40)), words(1, 2)));
        seeds.put("unknown-program", record(rpc(RpcCall.of(XID, 99, 1, 0, OpaqueAuth.NONE, OpaqueAuth.NONE))));
        return seeds;
    }

    /** byte 0: maximum record size index, byte 1: how the stream is cut, then the stream. */
    static Map<String, byte[]> recordSeeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        byte[] twoRecords = concat(words(RecordMarking.header(true, 8)), words(1, 2),
                words(RecordMarking.header(false, 4)), words(3), words(RecordMarking.header(true, 4)), words(4));
        seeds.put("two-records-one-read", concat(new byte[] {6, (byte) 0x80}, twoRecords));
        seeds.put("two-records-3-byte-reads", concat(new byte[] {6, 2}, twoRecords));
        seeds.put("over-the-limit", concat(new byte[] {1, (byte) 0x80}, words(RecordMarking.header(true, 8)), words(1, 2)));
        seeds.put("announces-2g", concat(new byte[] {7, (byte) 0x80}, words(0xFFFF_FFFF)));
        seeds.put("empty-fragments", concat(new byte[] {0, 0x10}, words(0, RecordMarking.header(true, 0))));
        return seeds;
    }

    /** byte 0: the number of op bytes, then the ops, then the data (see XdrDecoderFuzzTest). */
    static Map<String, byte[]> xdrSeeds() {
        Map<String, byte[]> seeds = new LinkedHashMap<>();
        byte[] data = new byte[64];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(data));
        out.putInt(7).putBoolean(true).putString("host", 255).putArray(List.of(1, 2, 3), 16, XdrEncoder::putInt);
        // getInt, getBoolean, getString<255>, getArray<16> of 4-byte ints
        seeds.put("int-bool-string-array", concat(new byte[] {4, 0x00, 0x03, (byte) 0xA9, (byte) 0x8A},
                out.written(0).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
        data = new byte[64];
        out = new XdrEncoder(MemorySegment.ofArray(data));
        out.putOpaque(new byte[] {1, 2, 3, 4, 5}, 100).putHyper(-1).putFloat(1.5f).putDouble(2.5).putInt(3);
        out.putInt(1).putInt(2).putInt(3);
        // getOpaque<100>, getHyper, float+double, getIntArray<4>
        seeds.put("opaque-hyper-float-intarray", concat(new byte[] {4, (byte) 0x97, 0x02, 0x05, (byte) 0x3C},
                out.written(0).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
        data = new byte[32];
        out = new XdrEncoder(MemorySegment.ofArray(data));
        out.putBoolean(true).putString("abcdefg", 8).putInt(2).putFixedOpaque(new byte[6]);
        // getOptional(string<8>), getEnum(<=2), getFixedOpaque(6), getLength, skip
        seeds.put("optional-enum-fixed", concat(new byte[] {3, 0x0D, 0x24, 0x26},
                out.written(0).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
        List<Byte> ops = new ArrayList<>();
        for (int op = 0; op < 16; op++) {
            ops.add((byte) (op | 0x50));
        }
        byte[] all = new byte[1 + ops.size() + 128];
        all[0] = (byte) ops.size();
        for (int i = 0; i < ops.size(); i++) {
            all[1 + i] = ops.get(i);
        }
        seeds.put("every-op-zeros", all);
        return seeds;
    }
}
