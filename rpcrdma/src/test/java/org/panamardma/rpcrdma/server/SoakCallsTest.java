package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;
import org.panamardma.rpcrdma.RdmaProcedure;
import org.panamardma.rpcrdma.client.CallPlan;
import org.panamardma.rpcrdma.client.ChunkPlanner;
import org.panamardma.rpcrdma.client.RpcRdmaClientOptions;
import org.panamardma.rpcrdma.client.RpcRdmaReply;

/**
 * The soak's call mix without a device: payloads equal {@link EchoProgram#pattern}, the mix has every shape and
 * size class, and the client's planner, with the default options against the server's default 4 KiB inline sizes,
 * sends each shape by the path {@link SoakCalls} then expects (at the edges of each size range).
 */
class SoakCallsTest {
    private static final RpcRdmaClientOptions O = RpcRdmaClientOptions.DEFAULTS;
    private final ChunkPlanner planner =
            new ChunkPlanner(4096, 4096, O.readChunkMinimum(), O.writeChunkMinimum(), O.alwaysReplyChunk());

    @Test
    void payloadsAreThePatternOfTheirSeed() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment base = SoakCalls.patternBase(arena);
            for (int seed = 0; seed < 251; seed++) {
                for (int size : new int[] {0, 1, 250, 251, 4097, SoakCalls.MAX_SIZE}) {
                    if (size == SoakCalls.MAX_SIZE && seed % 50 != 0) {
                        continue;
                    }
                    SoakCalls.Spec spec = new SoakCalls.Spec(SoakCalls.Shape.INLINE, size, seed);
                    assertArrayEquals(
                            EchoProgram.pattern(size, seed),
                            SoakCalls.payload(base, spec).toArray(ValueLayout.JAVA_BYTE),
                            size + "/" + seed);
                }
            }
        }
    }

    @Test
    void theMixHasEveryShapeAndSizeFromZeroToOneMiB() {
        SoakCalls.Stream r = new SoakCalls.Stream(new SplittableRandom(1));
        Map<SoakCalls.Shape, Integer> shapes = new EnumMap<>(SoakCalls.Shape.class);
        int empty = 0;
        int large = 0;
        int oneMiB = 0;
        for (int i = 0; i < 10_000; i++) {
            SoakCalls.Spec s = r.next();
            shapes.merge(s.shape(), 1, Integer::sum);
            assertTrue(s.size() >= 0 && s.size() <= SoakCalls.MAX_SIZE);
            switch (s.shape()) {
                case NULL -> assertEquals(0, s.size());
                case INLINE -> assertTrue(s.size() <= SoakCalls.INLINE_MAX);
                default -> assertTrue(s.size() >= SoakCalls.CHUNK_MIN);
            }
            empty += s.shape() == SoakCalls.Shape.INLINE && s.size() == 0 ? 1 : 0;
            large += s.size() > SoakCalls.MEDIUM_MAX ? 1 : 0;
            oneMiB += s.size() == SoakCalls.MAX_SIZE ? 1 : 0;
        }
        assertEquals(SoakCalls.Shape.values().length, shapes.size(), shapes.toString());
        assertEquals(20, oneMiB);
        assertEquals(70, large, "1 MiB and the others beyond 64 KiB");
        assertTrue(empty > 100, empty + " empty");
    }

    /**
     * The victim process starts from the command the soak builds (this JVM's java, the tests' class path), says so,
     * and when it cannot connect (no server at 127.0.0.1:9; on this host perhaps no RDMA device) reports it and exits.
     */
    @Test
    void theVictimStartsAndReportsAFailedConnect() throws Exception {
        List<String> command =
                SoakDeviceTests.victimCommand(new InetSocketAddress("127.0.0.1", 9), 1, 1, 1, Duration.ofSeconds(5));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the victim exits");
            List<String> lines =
                    new String(p.getInputStream().readAllBytes()).lines().toList();
            assertEquals("started", lines.get(0), lines.toString());
            assertEquals("connecting", lines.get(1), lines.toString());
            assertTrue(lines.get(2).startsWith("failed "), lines.toString());
            assertEquals(2, p.exitValue(), lines.toString());
        } finally {
            p.destroyForcibly();
        }
    }

    /** The check finds a wrong byte, a wrong path, a short Write chunk, a failed call: the soak can fail. */
    @Test
    void theCheckOfAReplyFindsWhatIsWrong() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment base = SoakCalls.patternBase(arena);
            var ok = org.panamardma.oncrpc.AcceptedReply.success(1, OpaqueAuth.NONE);
            SoakCalls.Spec plain = new SoakCalls.Spec(SoakCalls.Shape.LONG_REPLY, 6000, 5);
            MemorySegment payload = SoakCalls.payload(base, plain);
            MemorySegment results = arena.allocate(4 + 6000);
            new org.panamardma.xdr.XdrEncoder(results).putOpaque(payload, EchoProgram.MAX);
            RpcRdmaReply right = new RpcRdmaReply(
                    ok, results, List.of(), CallPlan.Kind.POSITION_ZERO, RdmaProcedure.RDMA_NOMSG, true);
            assertEquals(null, SoakCalls.check(plain, payload, right));
            assertTrue(SoakCalls.check(
                            plain,
                            payload,
                            new RpcRdmaReply(
                                    ok, results, List.of(), CallPlan.Kind.READ_CHUNKS, RdmaProcedure.RDMA_NOMSG, true))
                    .contains("path"));
            results.set(ValueLayout.JAVA_BYTE, 4 + 4321, (byte) 0xFF);
            assertTrue(SoakCalls.check(plain, payload, right).contains("bytes differ at 4321"));
            assertTrue(SoakCalls.check(
                            plain,
                            payload,
                            new RpcRdmaReply(
                                    org.panamardma.oncrpc.AcceptedReply.failure(
                                            1, OpaqueAuth.NONE, AcceptStat.SYSTEM_ERR),
                                    arena.allocate(0),
                                    List.of(),
                                    CallPlan.Kind.POSITION_ZERO,
                                    RdmaProcedure.RDMA_NOMSG,
                                    true))
                    .contains("not SUCCESS"));

            SoakCalls.Spec placed = new SoakCalls.Spec(SoakCalls.Shape.READ_WRITE, 6000, 9);
            MemorySegment data = SoakCalls.payload(base, placed);
            MemorySegment target = arena.allocate(6000);
            target.copyFrom(data);
            MemorySegment lengthWord = arena.allocate(4);
            new org.panamardma.xdr.XdrEncoder(lengthWord).putInt(6000);
            assertEquals(
                    null,
                    SoakCalls.check(
                            placed,
                            data,
                            new RpcRdmaReply(
                                    ok,
                                    lengthWord,
                                    List.of(new RpcRdmaReply.Placement(target, true, 6000)),
                                    CallPlan.Kind.READ_CHUNKS,
                                    RdmaProcedure.RDMA_MSG,
                                    false)));
            assertTrue(SoakCalls.check(
                            placed,
                            data,
                            new RpcRdmaReply(
                                    ok,
                                    lengthWord,
                                    List.of(new RpcRdmaReply.Placement(target, true, 5996)),
                                    CallPlan.Kind.READ_CHUNKS,
                                    RdmaProcedure.RDMA_MSG,
                                    false))
                    .contains("Write chunk carried 5996"));
        }
    }

    @Test
    void eachShapeIsPlannedOnItsPath() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment base = SoakCalls.patternBase(arena);
            MemorySegment target = arena.allocate(SoakCalls.MAX_SIZE);
            RpcCall call = RpcCall.of(1, EchoProgram.PROGRAM, EchoProgram.VERSION, 0, OpaqueAuth.NONE, OpaqueAuth.NONE);
            for (SoakCalls.Shape shape : SoakCalls.Shape.values()) {
                int[] sizes = switch (shape) {
                    case NULL -> new int[] {0};
                    case INLINE -> new int[] {0, 1, SoakCalls.INLINE_MAX};
                    default -> new int[] {SoakCalls.CHUNK_MIN, SoakCalls.MEDIUM_MAX, SoakCalls.MAX_SIZE};
                };
                for (int size : sizes) {
                    SoakCalls.Spec spec = new SoakCalls.Spec(shape, size, 3);
                    CallPlan plan = planner.plan(
                            call,
                            SoakCalls.arguments(spec, SoakCalls.payload(base, spec)),
                            SoakCalls.expectation(spec, target.asSlice(0, size)));
                    assertEquals(shape.callKind, plan.kind(), spec.toString());
                    assertEquals(shape.writeList ? 1 : 0, plan.writeChunkCount(), spec.toString());
                    assertEquals(
                            shape.replyProcedure == org.panamardma.rpcrdma.RdmaProcedure.RDMA_NOMSG,
                            plan.replyChunkLength() > 0,
                            spec + ": reply chunk " + plan.replyChunkLength());
                }
            }
        }
    }
}
