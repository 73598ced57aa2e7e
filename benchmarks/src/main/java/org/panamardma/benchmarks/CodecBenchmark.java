package org.panamardma.benchmarks;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.infra.Blackhole;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.oncrpc.RpcMessage;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.rpcrdma.ChunkLists;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.ReadSegment;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderEncoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderException;
import org.panamardma.rpcrdma.WriteChunk;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;

/**
 * The marshaling cost on the RPC path, no device needed (runs on the host, so the figures are real ones): an ONC RPC
 * call header with AUTH_SYS (RFC 5531) and an RPC-over-RDMA header with a read segment, a write chunk and a reply
 * chunk (what an NFS READ/WRITE call carries), each encoded into and decoded from a reused native segment.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar CodecBenchmark -prof gc} (gc.alloc.rate.norm is the
 * bytes/op). Encoding writes primitives into the caller's segment; decoding builds the typed header values (records
 * and lists), whose allocation this measures.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBenchmark {
    private Arena arena;
    private MemorySegment callBuffer;
    private MemorySegment headerBuffer;
    private RpcCall call;
    private RdmaMsg header;
    private long callLength;
    private long headerLength;
    private final RpcRdmaHeaderDecoder headerDecoder = new RpcRdmaHeaderDecoder();

    @Setup
    public void setUp() {
        arena = Arena.ofConfined();
        callBuffer = arena.allocate(4096, 8);
        headerBuffer = arena.allocate(4096, 8);
        OpaqueAuth sys = new AuthSysParms(1, "client.example", 1000, 1000, List.of(1000, 10, 20)).toOpaqueAuth();
        call = RpcCall.of(0x1234_5678, 100003, 3, 6, sys, OpaqueAuth.NONE); // NFSv3 READ
        header = new RdmaMsg(
                0x1234_5678,
                32,
                new ChunkLists(
                        List.of(ReadSegment.of(0, 0x1111, 1 << 20, 0x7f00_0000_1000L)),
                        List.of(WriteChunk.of(new RdmaSegment(0x2222, 1 << 20, 0x7f00_0010_0000L))),
                        Optional.of(WriteChunk.of(new RdmaSegment(0x3333, 4096, 0x7f00_0020_0000L)))));
        callLength = encodeCall();
        headerLength = encodeHeader();
    }

    @TearDown
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public long encodeCall() {
        XdrEncoder out = new XdrEncoder(callBuffer);
        RpcMessageCodec.encode(call, out);
        return out.position();
    }

    @Benchmark
    public void decodeCall(Blackhole bh) {
        RpcMessage m = RpcMessageCodec.decode(new XdrDecoder(callBuffer.asSlice(0, callLength)));
        bh.consume(m);
    }

    @Benchmark
    public long encodeHeader() {
        XdrEncoder out = new XdrEncoder(headerBuffer);
        RpcRdmaHeaderEncoder.encode(header, out);
        return out.position();
    }

    @Benchmark
    public void decodeHeader(Blackhole bh) throws RpcRdmaHeaderException {
        DecodedHeader h = headerDecoder.decode(headerBuffer.asSlice(0, headerLength));
        bh.consume(h);
    }
}
