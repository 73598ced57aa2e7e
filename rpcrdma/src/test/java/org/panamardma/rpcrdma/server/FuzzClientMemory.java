package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.xdr.XdrEncoder;

/**
 * The client memory the server-side fuzz targets play (FUZZING.md): two regions registered in a fresh
 * {@link InMemoryChunkTransfers} for every input, at the handles and addresses the seed corpus names, so that the fuzzer
 * starts from headers whose chunks really move data.
 */
public final class FuzzClientMemory {
    /** Region 0: holds {@link #call()} at offset 0, then a byte pattern; the source of Read chunks. */
    public static final RdmaSegment SOURCE = new RdmaSegment(0x100, 8192, 0x7f00_0000_0000L);
    /** Region 1: zeros, the target of Write and Reply chunks. */
    public static final RdmaSegment SINK = new RdmaSegment(0x101, 16384, 0x7f00_0000_0000L + 8192 + 4096);
    /** The payload of {@link #call()}'s ECHO_PLAIN argument. */
    public static final int CALL_PAYLOAD = 600;
    /** Offset in region 0 of a 2000-byte pattern, for Read chunks carrying an argument. */
    public static final int PATTERN_OFFSET = 4096;

    private FuzzClientMemory() {}

    /** An ECHO_PLAIN call of {@value #CALL_PAYLOAD} bytes, whole: what a position-zero Read chunk carries. */
    public static byte[] call() {
        return echoCall(0x5eed_0002, EchoProgram.ECHO_PLAIN, EchoProgram.pattern(CALL_PAYLOAD, 3));
    }

    /** An RPC call header of {@link EchoProgram}. */
    public static byte[] rpcHeader(int xid, int procedure) {
        RpcCall call =
                RpcCall.of(xid, EchoProgram.PROGRAM, EchoProgram.VERSION, procedure, OpaqueAuth.NONE, OpaqueAuth.NONE);
        byte[] b = new byte[RpcMessageCodec.size(call)];
        RpcMessageCodec.encode(call, new XdrEncoder(MemorySegment.ofArray(b)));
        return b;
    }

    /** A whole echo call: header and opaque argument. */
    public static byte[] echoCall(int xid, int procedure, byte[] payload) {
        byte[] header = rpcHeader(xid, procedure);
        byte[] b = new byte[header.length + 4 + (payload.length + 3) / 4 * 4];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(b));
        out.putFixedOpaque(header);
        out.putOpaque(payload, EchoProgram.MAX);
        return b;
    }

    /**
     * A fresh client memory that also holds the server to the contract of {@link ChunkTransfers}: a Read fills a
     * destination exactly as long as its segments, a Write never carries more than its segments hold. A breach is
     * an AssertionError (a finding), not the IOException a device would turn it into.
     */
    static ChunkTransfers checkedTransfers() {
        InMemoryChunkTransfers memory = transfers();
        return new ChunkTransfers() {
            @Override
            public void read(List<RdmaSegment> segments, MemorySegment destination) throws IOException {
                if (destination.byteSize() != total(segments)) {
                    throw new AssertionError(
                            "RDMA Read of " + total(segments) + " bytes into " + destination.byteSize());
                }
                memory.read(segments, destination);
            }

            @Override
            public void write(MemorySegment source, List<RdmaSegment> segments) throws IOException {
                if (source.byteSize() > total(segments)) {
                    throw new AssertionError(
                            "RDMA Write of " + source.byteSize() + " bytes into segments of " + total(segments));
                }
                memory.write(source, segments);
            }
        };
    }

    private static long total(List<RdmaSegment> segments) {
        long total = 0;
        for (RdmaSegment s : segments) {
            total += s.length();
        }
        return total;
    }

    /** A fresh client memory: region 0 then region 1, so they get {@link #SOURCE}'s and {@link #SINK}'s handles. */
    static InMemoryChunkTransfers transfers() {
        InMemoryChunkTransfers transfers = new InMemoryChunkTransfers();
        byte[] source = new byte[SOURCE.length()];
        byte[] call = call();
        System.arraycopy(call, 0, source, 0, call.length);
        byte[] pattern = EchoProgram.pattern(2000, 5);
        System.arraycopy(pattern, 0, source, PATTERN_OFFSET, pattern.length);
        RdmaSegment s = transfers.register(source);
        RdmaSegment w = transfers.registerEmpty(SINK.length());
        if (!s.equals(SOURCE) || !w.equals(SINK)) {
            throw new IllegalStateException("InMemoryChunkTransfers registers elsewhere now: " + s + ", " + w);
        }
        return transfers;
    }
}
