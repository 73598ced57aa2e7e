package org.panamardma.oncrpc;

import static org.panamardma.testing.Bytes.concat;
import static org.panamardma.testing.Bytes.words;
import static org.panamardma.testing.SeedCorpus.write;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.panamardma.xdr.XdrEncoder;

/**
 * Writes the seed corpus of the oncrpc module's fuzz targets (rpcrdma/FUZZING.md: {@code xdr}, {@code rpc},
 * {@code record}, {@code tcp-connection}): valid messages of every kind each decoder reads, built with the module's
 * own encoders, into the {@code <Class>Inputs/<method>/} directories under src/test/resources. Run after changing a
 * format: {@code oncrpc/fuzz.sh seeds}.
 */
public final class OncRpcFuzzSeeds {
    private static final int XID = 0x5eed_0001;

    private OncRpcFuzzSeeds() {}

    public static void main(String[] args) {
        Path resources = Path.of(args.length > 0 ? args[0] : "src/test/resources");
        write(resources, "org.panamardma.oncrpc.RpcMessageFuzzTest", "decode", rpcSeeds());
        write(resources, "org.panamardma.oncrpc.RecordMarkingFuzzTest", "feed", recordSeeds());
        write(resources, "org.panamardma.xdr.XdrDecoderFuzzTest", "getters", xdrSeeds());
        write(resources, "org.panamardma.oncrpc.tcp.TcpConnectionFuzzTest", "stream", tcpSeeds());
    }

    /** An RPC message followed by the given result or argument words. */
    static byte[] rpc(RpcMessage message, int... resultWords) {
        byte[] head = new byte[RpcMessageCodec.size(message)];
        RpcMessageCodec.encode(message, new XdrEncoder(MemorySegment.ofArray(head)));
        return concat(head, words(resultWords));
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
        seeds.put(
                "opaque-auth-short",
                rpc(RpcCall.of(
                        XID,
                        1,
                        1,
                        1,
                        new OpaqueAuth(AuthFlavor.AUTH_SYS, new byte[] {1, 2, 3, 4, 5}),
                        OpaqueAuth.NONE)));
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
        byte[] echo = record(
                rpc(RpcCall.of(XID + 1, prog, 1, 1, OpaqueAuth.NONE, OpaqueAuth.NONE), 8, 0x01020304, 0x05060708));
        byte[] echoInline = record(rpc(RpcCall.of(XID + 2, prog, 1, 2, OpaqueAuth.NONE, OpaqueAuth.NONE), 4, 7));
        byte[] fail = record(rpc(RpcCall.of(XID + 3, prog, 1, 3, OpaqueAuth.NONE, OpaqueAuth.NONE)));
        AuthSysParms parms = new AuthSysParms(0x1234, "client.example", 1000, 100, List.of(4, 24));
        byte[] authSys = record(rpc(RpcCall.of(XID + 4, prog, 1, 0, parms.toOpaqueAuth(), OpaqueAuth.NONE)));
        seeds.put("null", nullCall);
        seeds.put("calls-of-every-procedure", concat(nullCall, echo, echoInline, fail, authSys));
        byte[] call = rpc(RpcCall.of(XID + 5, prog, 1, 0, OpaqueAuth.NONE, OpaqueAuth.NONE));
        seeds.put(
                "two-fragments",
                concat(
                        words(RecordMarking.header(false, 12)),
                        java.util.Arrays.copyOf(call, 12),
                        words(RecordMarking.header(true, call.length - 12)),
                        java.util.Arrays.copyOfRange(call, 12, call.length)));
        byte[] big = new byte[20 << 10];
        seeds.put(
                "echo-beyond-the-connection-budget-then-null",
                concat(
                        record(concat(
                                rpc(RpcCall.of(XID + 6, prog, 1, 1, OpaqueAuth.NONE, OpaqueAuth.NONE), big.length),
                                big)),
                        nullCall));
        seeds.put(
                "echo-inline-beyond-the-reply-buffer",
                record(concat(
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
        byte[] twoRecords = concat(
                words(RecordMarking.header(true, 8)),
                words(1, 2),
                words(RecordMarking.header(false, 4)),
                words(3),
                words(RecordMarking.header(true, 4)),
                words(4));
        seeds.put("two-records-one-read", concat(new byte[] {6, (byte) 0x80}, twoRecords));
        seeds.put("two-records-3-byte-reads", concat(new byte[] {6, 2}, twoRecords));
        seeds.put(
                "over-the-limit",
                concat(new byte[] {1, (byte) 0x80}, words(RecordMarking.header(true, 8)), words(1, 2)));
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
        seeds.put(
                "int-bool-string-array",
                concat(
                        new byte[] {4, 0x00, 0x03, (byte) 0xA9, (byte) 0x8A},
                        out.written(0).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
        data = new byte[64];
        out = new XdrEncoder(MemorySegment.ofArray(data));
        out.putOpaque(new byte[] {1, 2, 3, 4, 5}, 100)
                .putHyper(-1)
                .putFloat(1.5f)
                .putDouble(2.5)
                .putInt(3);
        out.putInt(1).putInt(2).putInt(3);
        // getOpaque<100>, getHyper, float+double, getIntArray<4>
        seeds.put(
                "opaque-hyper-float-intarray",
                concat(
                        new byte[] {4, (byte) 0x97, 0x02, 0x05, (byte) 0x3C},
                        out.written(0).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
        data = new byte[32];
        out = new XdrEncoder(MemorySegment.ofArray(data));
        out.putBoolean(true).putString("abcdefg", 8).putInt(2).putFixedOpaque(new byte[6]);
        // getOptional(string<8>), getEnum(<=2), getFixedOpaque(6), getLength, skip
        seeds.put(
                "optional-enum-fixed",
                concat(
                        new byte[] {3, 0x0D, 0x24, 0x26},
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
