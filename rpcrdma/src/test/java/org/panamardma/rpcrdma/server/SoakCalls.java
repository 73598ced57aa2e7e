package org.panamardma.rpcrdma.server;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.rpcrdma.RdmaProcedure;
import org.panamardma.rpcrdma.client.CallPlan;
import org.panamardma.rpcrdma.client.ReplyExpectation;
import org.panamardma.rpcrdma.client.RpcRdmaClient;
import org.panamardma.rpcrdma.client.RpcRdmaReply;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;

/**
 * The calls of the soak ({@link SoakDeviceTests}, {@link SoakVictim}): a deterministic mix of {@link EchoProgram}
 * calls from 0 B to 1 MiB whose sizes make {@link RpcRdmaClient} choose each RPC-over-RDMA path, and the check of
 * every reply: the path both ways is the one the sizes call for, and the bytes are the ones sent.
 *
 * <p>Payloads are slices of one native pattern buffer (byte i of a payload with seed s is
 * {@code (i * 7 + s) mod 251}, {@link EchoProgram#pattern}): the pattern has period 251, so the payload of seed s
 * starts at the offset o with {@code 7 o = s (mod 251)}. Nothing is generated per call, and eligible arguments are
 * registered in place. Placement targets are filled with 0xFF (a byte the pattern never holds) before each call.
 */
final class SoakCalls {
    static final int MiB = 1 << 20;
    /** Largest payload; a call of this many bytes is made now and then. */
    static final int MAX_SIZE = MiB;
    /** Up to here both the call and the reply fit the 4 KiB inline thresholds. */
    static final int INLINE_MAX = 3000;
    /** From here the call cannot go inline (header + 5000 bytes exceeds 4096). */
    static final int CHUNK_MIN = 5000;

    static final int MEDIUM_MAX = 64 << 10;
    private static final int PERIOD = 251;
    /** 7 * 36 = 252 = 1 (mod 251). */
    private static final int INVERSE_OF_7 = 36;

    /** What a call is and which path it must take. */
    enum Shape {
        /** NULL procedure: nothing either way, inline. */
        NULL(CallPlan.Kind.INLINE, RdmaProcedure.RDMA_MSG, false),
        /** ECHO_PLAIN of 0..3000 bytes: inline call, inline reply. */
        INLINE(CallPlan.Kind.INLINE, RdmaProcedure.RDMA_MSG, false),
        /** ECHO, argument eligible, result placed: Read chunk in, Write list out. */
        READ_WRITE(CallPlan.Kind.READ_CHUNKS, RdmaProcedure.RDMA_MSG, true),
        /** ECHO_PLAIN beyond the inline threshold: Long Call (position-zero Read chunk), reply in the Reply chunk. */
        LONG_REPLY(CallPlan.Kind.POSITION_ZERO, RdmaProcedure.RDMA_NOMSG, false),
        /** ECHO, argument eligible, no placement target: Read chunk in, reply (the data in it) in the Reply chunk. */
        READ_REPLY(CallPlan.Kind.READ_CHUNKS, RdmaProcedure.RDMA_NOMSG, false);

        final CallPlan.Kind callKind;
        final RdmaProcedure replyProcedure;
        final boolean writeList;

        Shape(CallPlan.Kind callKind, RdmaProcedure replyProcedure, boolean writeList) {
            this.callKind = callKind;
            this.replyProcedure = replyProcedure;
            this.writeList = writeList;
        }
    }

    /** One call: its shape, payload size and pattern seed. */
    record Spec(Shape shape, int size, int seed) {}

    /**
     * A stream of calls (one per calling thread). Under emulation every byte costs (rxe computes its ICRC in the
     * emulated CPU), so the mix leans to small calls while still reaching every path and 1 MiB regularly. Of every
     * 1000 calls of a stream: 2 of exactly 1 MiB (calls 17 and 517: every stream makes one early), 3 more larger than
     * 64 KiB (calls 99, 299, 699...: each n with n mod 200 = 99 that is not 1 MiB), both over the three chunked
     * shapes in turn; the other 995 at random: 3% NULL, 67% inline (0..3000 B, 1 in 20 empty), 12% Read chunk /
     * Write list, 10% Long Call / Reply chunk, 8% Read chunk / Reply chunk, those three 5000 B..16 KiB (3 in 4) or
     * 16..64 KiB.
     */
    static final class Stream {
        private final SplittableRandom r;
        private long n;

        Stream(SplittableRandom r) {
            this.r = r;
        }

        Spec next() {
            long i = n++;
            int seed = r.nextInt(PERIOD);
            Shape chunked = Shape.values()[2 + (int) (i / 100 % 3)];
            if (i % 500 == 17) {
                return new Spec(chunked, MAX_SIZE, seed);
            }
            if (i % 200 == 99) {
                return new Spec(chunked, r.nextInt(MEDIUM_MAX + 1, MAX_SIZE), seed);
            }
            int w = r.nextInt(100);
            if (w < 3) {
                return new Spec(Shape.NULL, 0, seed);
            }
            if (w < 70) {
                return new Spec(Shape.INLINE, r.nextInt(20) == 0 ? 0 : r.nextInt(INLINE_MAX + 1), seed);
            }
            Shape s = w < 82 ? Shape.READ_WRITE : w < 92 ? Shape.LONG_REPLY : Shape.READ_REPLY;
            int size =
                    r.nextInt(4) < 3 ? r.nextInt(CHUNK_MIN, (16 << 10) + 1) : r.nextInt((16 << 10) + 1, MEDIUM_MAX + 1);
            return new Spec(s, size, seed);
        }
    }

    /** Counts by path over many calls (thread-safe). */
    static final class PathCounts {
        final LongAdder calls = new LongAdder();
        final LongAdder bytes = new LongAdder();
        final LongAdder callInline = new LongAdder();
        final LongAdder callReadChunks = new LongAdder();
        final LongAdder callPositionZero = new LongAdder();
        final LongAdder replyInline = new LongAdder();
        final LongAdder replyWriteList = new LongAdder();
        final LongAdder replyChunk = new LongAdder();
        final LongAdder large = new LongAdder();
        final LongAdder oneMiB = new LongAdder();

        void add(Spec spec) {
            calls.increment();
            bytes.add(2L * spec.size());
            switch (spec.shape().callKind) {
                case INLINE -> callInline.increment();
                case READ_CHUNKS -> callReadChunks.increment();
                case POSITION_ZERO -> callPositionZero.increment();
            }
            if (spec.shape().writeList) {
                replyWriteList.increment();
            } else if (spec.shape().replyProcedure == RdmaProcedure.RDMA_NOMSG) {
                replyChunk.increment();
            } else {
                replyInline.increment();
            }
            if (spec.size() > MEDIUM_MAX) {
                large.increment();
            }
            if (spec.size() == MAX_SIZE) {
                oneMiB.increment();
            }
        }

        @Override
        public String toString() {
            return String.format(
                    "%d calls (%.1f MiB echoed), call paths: inline %d, Read chunks %d, Long Call "
                            + "(position zero) %d; reply paths: inline %d, Write list %d, Reply chunk %d; >64 KiB %d "
                            + "(1 MiB %d)",
                    calls.sum(),
                    bytes.sum() / (double) MiB,
                    callInline.sum(),
                    callReadChunks.sum(),
                    callPositionZero.sum(),
                    replyInline.sum(),
                    replyWriteList.sum(),
                    replyChunk.sum(),
                    large.sum(),
                    oneMiB.sum());
        }
    }

    /** The pattern source: {@code MAX_SIZE + 251} bytes, byte i = (7 i) mod 251. */
    static MemorySegment patternBase(Arena arena) {
        MemorySegment base = arena.allocate(MAX_SIZE + PERIOD);
        for (int i = 0; i < PERIOD; i++) {
            base.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 % PERIOD));
        }
        for (long filled = PERIOD; filled < base.byteSize(); filled *= 2) {
            long n = Math.min(filled, base.byteSize() - filled);
            MemorySegment.copy(base, 0, base, filled, n);
        }
        return base;
    }

    /** The payload of {@code spec}: equal to {@code EchoProgram.pattern(size, seed)}. */
    static MemorySegment payload(MemorySegment base, Spec spec) {
        long offset = (long) spec.seed() * INVERSE_OF_7 % PERIOD;
        return base.asSlice(offset, spec.size());
    }

    /**
     * Makes the call of {@code spec} and checks its reply.
     *
     * @param target a placement buffer of at least {@link #MAX_SIZE} bytes, owned by the caller's thread
     * @return {@code null} if the reply is right; otherwise what was wrong
     * @throws ExecutionException if the call failed (its cause: why): a lost reply
     * @throws TimeoutException if no answer came within twice the call's timeout
     */
    static String call(RpcRdmaClient c, MemorySegment base, MemorySegment target, Spec spec, Duration timeout)
            throws ExecutionException, TimeoutException, InterruptedException {
        MemorySegment payload = payload(base, spec);
        int size = spec.size();
        MemorySegment placement = target.asSlice(0, size);
        if (spec.shape().writeList) {
            placement.fill((byte) 0xFF);
        }
        var future = c.call(
                EchoProgram.PROGRAM,
                EchoProgram.VERSION,
                procedure(spec),
                OpaqueAuth.NONE,
                arguments(spec, payload),
                expectation(spec, placement),
                timeout);
        RpcRdmaReply r = future.get(2 * timeout.toMillis(), TimeUnit.MILLISECONDS);
        return check(spec, payload, r);
    }

    /** The procedure {@code spec} calls. */
    static int procedure(Spec spec) {
        return switch (spec.shape()) {
            case NULL -> EchoProgram.NULL;
            case INLINE, LONG_REPLY -> EchoProgram.ECHO_PLAIN;
            case READ_WRITE, READ_REPLY -> EchoProgram.ECHO;
        };
    }

    /** The arguments: nothing, or the payload as a plain or a DDP-eligible opaque. */
    static XdrEncodable arguments(Spec spec, MemorySegment payload) {
        return switch (spec.shape()) {
            case NULL -> XdrEncodable.VOID;
            case INLINE, LONG_REPLY -> out -> out.putOpaque(payload, EchoProgram.MAX);
            case READ_WRITE, READ_REPLY -> out -> out.putEligibleOpaque(payload, EchoProgram.MAX);
        };
    }

    /** What the reply may be: room for the echo, in {@code placement} if the shape wants the Write list. */
    static ReplyExpectation expectation(Spec spec, MemorySegment placement) {
        return switch (spec.shape()) {
            case NULL -> ReplyExpectation.SMALL;
            case INLINE, LONG_REPLY, READ_REPLY -> ReplyExpectation.upTo(spec.size() + 8L);
            case READ_WRITE -> ReplyExpectation.placedInto(placement, spec.size() + 8L);
        };
    }

    /** @return {@code null} if {@code r} is the right reply to {@code spec} (path and bytes), else what is wrong */
    static String check(Spec spec, MemorySegment payload, RpcRdmaReply r) {
        String what = spec + ": ";
        if (!r.isSuccess()) {
            return what + "not SUCCESS: " + r.header();
        }
        if (r.callKind() != spec.shape().callKind
                || r.replyProcedure() != spec.shape().replyProcedure
                || r.usedWriteList() != spec.shape().writeList) {
            return what + "path: call " + r.callKind() + ", reply " + r.replyProcedure() + ", write list "
                    + r.usedWriteList();
        }
        XdrDecoder in = r.resultsDecoder();
        MemorySegment echoed;
        if (spec.shape() == Shape.NULL) {
            return r.results().byteSize() == 0 ? null : what + r.results().byteSize() + " bytes of results for NULL";
        } else if (spec.shape().writeList) {
            long placed = r.placements().get(0).length();
            if (placed != spec.size()) {
                return what + "Write chunk carried " + placed + " bytes";
            }
            int length = in.getInt();
            if (length != spec.size()) {
                return what + "inline length word " + length;
            }
            echoed = r.placed(0);
        } else {
            echoed = in.getOpaque(EchoProgram.MAX);
        }
        if (!in.atEnd()) {
            return what + in.remaining() + " bytes after the result";
        }
        long at = echoed.mismatch(payload);
        return at == -1 ? null : what + "bytes differ at " + at + " (" + echoed.byteSize() + " bytes back)";
    }

    private SoakCalls() {}
}
