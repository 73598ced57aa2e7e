package org.panamardma.oncrpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.panamardma.testing.Bytes.words;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.testing.Bytes;
import org.panamardma.xdr.DataPlacement;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrEncoder;

class RpcDispatcherTest {
    static final int PROG = 400_123;
    static final int XID = 0x1234;

    /** Two versions (2 and 5) of a test program: 2.1 adds two ints, 5.0 is NULL, 5.7 throws, 5.8 returns a lot. */
    private final RpcDispatcher dispatcher = RpcDispatcher.builder()
            .register(
                    PROG,
                    2,
                    1,
                    in -> new int[] {in.getInt(), in.getInt()},
                    (int[] args, RpcCall call) -> out -> out.putInt(args[0] + args[1]))
            .register(PROG, 5, 0, in -> "", (args, call) -> XdrEncodable.VOID)
            .register(PROG, 5, 7, in -> "", (args, call) -> {
                throw new IllegalStateException("boom");
            })
            .register(PROG, 5, 8, in -> "", (args, call) -> out -> out.putOpaque(new byte[4096], 8192))
            .build();

    private record Outcome(RpcReply header, XdrDecoder rest) {}

    private Outcome dispatch(RpcCall call, int... argumentWords) {
        return dispatch(dispatcher, call, 256, argumentWords);
    }

    private static Outcome dispatch(RpcDispatcher dispatcher, RpcCall call, int capacity, int... argumentWords) {
        MemorySegment buffer = MemorySegment.ofArray(new byte[capacity]);
        XdrEncoder out = new XdrEncoder(buffer, 8, DataPlacement.INLINE); // replies need not start at 0
        RpcReply returned = dispatcher.dispatch(call, new XdrDecoder(MemorySegment.ofArray(words(argumentWords))), out);
        XdrDecoder written = new XdrDecoder(out.written(8));
        RpcReply decoded = (RpcReply) RpcMessageCodec.decode(written);
        assertEquals(returned, decoded, "returned header is the one written");
        return new Outcome(decoded, written);
    }

    private static RpcCall call(int version, int procedure) {
        return RpcCall.of(XID, PROG, version, procedure, OpaqueAuth.NONE, OpaqueAuth.NONE);
    }

    @Test
    void successWritesHeaderThenResults() {
        Outcome o = dispatch(call(2, 1), 40, 2);
        assertEquals(AcceptedReply.success(XID, OpaqueAuth.NONE), o.header());
        assertEquals(42, o.rest().getInt());
        assertTrue(o.rest().atEnd());
    }

    @Test
    void unknownProgramIsProgUnavail() {
        Outcome o = dispatch(RpcCall.of(XID, PROG + 1, 2, 1, OpaqueAuth.NONE, OpaqueAuth.NONE));
        assertEquals(AcceptedReply.failure(XID, OpaqueAuth.NONE, AcceptStat.PROG_UNAVAIL), o.header());
        assertTrue(o.rest().atEnd());
    }

    @Test
    void unknownVersionIsProgMismatchWithTheRegisteredRange() {
        Outcome o = dispatch(call(3, 1));
        assertEquals(AcceptedReply.progMismatch(XID, OpaqueAuth.NONE, 2, 5), o.header());
    }

    @Test
    void unknownProcedureIsProcUnavail() {
        assertEquals(
                AcceptStat.PROC_UNAVAIL, ((AcceptedReply) dispatch(call(2, 0)).header()).stat());
        assertEquals(
                AcceptStat.PROC_UNAVAIL, ((AcceptedReply) dispatch(call(5, 1)).header()).stat());
    }

    @Test
    void argumentsThatDoNotDecodeAreGarbageArgs() {
        Outcome o = dispatch(call(2, 1), 40); // one int where two are needed
        assertEquals(AcceptedReply.failure(XID, OpaqueAuth.NONE, AcceptStat.GARBAGE_ARGS), o.header());
        assertTrue(o.rest().atEnd());
    }

    @Test
    void procedureThatThrowsIsSystemErr() {
        assertEquals(
                AcceptedReply.failure(XID, OpaqueAuth.NONE, AcceptStat.SYSTEM_ERR),
                dispatch(call(5, 7)).header());
    }

    @Test
    void resultsThatDoNotFitAreReplacedBySystemErr() {
        Outcome o = dispatch(dispatcher, call(5, 8), 200);
        assertEquals(AcceptedReply.failure(XID, OpaqueAuth.NONE, AcceptStat.SYSTEM_ERR), o.header());
        assertTrue(o.rest().atEnd(), "no trace of the half-written SUCCESS reply");
    }

    @Test
    void rpcVersionOtherThanTwoIsRpcMismatch() {
        RpcCall v3 = new RpcCall(XID, 3, PROG, 2, 1, OpaqueAuth.NONE, OpaqueAuth.NONE);
        assertEquals(RejectedReply.rpcMismatch(XID, 2, 2), dispatch(v3).header());
    }

    @Test
    void credentialsAreCheckedBeforeDispatch() {
        OpaqueAuth sys = new AuthSysParms(1, "client", 0, 0, List.of()).toOpaqueAuth();
        assertEquals(
                AcceptStat.SUCCESS,
                ((AcceptedReply) dispatch(RpcCall.of(XID, PROG, 2, 1, sys, OpaqueAuth.NONE), 1, 1)
                                .header())
                        .stat());
        OpaqueAuth gss = new OpaqueAuth(AuthFlavor.RPCSEC_GSS, new byte[8]);
        assertEquals(
                RejectedReply.authError(XID, AuthStat.AUTH_BADCRED),
                dispatch(RpcCall.of(XID, PROG, 2, 1, gss, OpaqueAuth.NONE)).header());
        OpaqueAuth brokenSys = new OpaqueAuth(AuthFlavor.AUTH_SYS, words(0, 99));
        assertEquals(
                RejectedReply.authError(XID, AuthStat.AUTH_BADCRED),
                dispatch(RpcCall.of(XID, PROG, 2, 1, brokenSys, OpaqueAuth.NONE))
                        .header());

        RpcDispatcher strict = RpcDispatcher.builder()
                .register(PROG, 1, 0, in -> "", (a, c) -> XdrEncodable.VOID)
                .authenticator(
                        c -> c.credential().flavor() == AuthFlavor.AUTH_SYS ? AuthStat.AUTH_OK : AuthStat.AUTH_TOOWEAK)
                .build();
        assertEquals(
                RejectedReply.authError(XID, AuthStat.AUTH_TOOWEAK),
                dispatch(strict, RpcCall.of(XID, PROG, 1, 0, OpaqueAuth.NONE, OpaqueAuth.NONE), 64)
                        .header());
    }

    @Test
    void procedureSeesTheCallAndDecodedArguments() {
        List<Object> seen = new ArrayList<>();
        RpcDispatcher recording = RpcDispatcher.builder()
                .register(PROG, 1, 4, in -> in.getString(16), (String name, RpcCall call) -> {
                    seen.add(name);
                    seen.add(call.procedure());
                    return out -> out.putString(name.toUpperCase(), 16);
                })
                .build();
        Outcome o =
                dispatch(recording, RpcCall.of(XID, PROG, 1, 4, OpaqueAuth.NONE, OpaqueAuth.NONE), 64, 3, 0x61626300);
        assertEquals(List.of("abc", 4), seen);
        assertEquals("ABC", o.rest().getString(16));
    }

    @Test
    void eligibleResultDataReachesTheTransportsPlacement() {
        List<Long> placed = new ArrayList<>();
        DataPlacement placement = (position, data) -> placed.add(position);
        RpcDispatcher reader = RpcDispatcher.builder()
                .register(PROG, 1, 6, in -> "", (a, c) -> out -> {
                    out.putInt(0); // some status
                    out.putEligibleOpaque(MemorySegment.ofArray(new byte[5000]), 1 << 20);
                })
                .build();
        MemorySegment buffer = MemorySegment.ofArray(new byte[128]);
        XdrEncoder out = new XdrEncoder(buffer, 0, placement);
        reader.dispatch(
                RpcCall.of(XID, PROG, 1, 6, OpaqueAuth.NONE, OpaqueAuth.NONE), new XdrDecoder(MemorySegment.NULL), out);
        // header 24 bytes, status 4, length 4: the data starts at stream position 32
        assertEquals(List.of(32L), placed);
        assertArrayEquals(words(XID, 1, 0, 0, 0, 0, 0, 5000), Bytes.of(out.written(0)));
    }

    @Test
    void duplicateRegistrationIsRefused() {
        RpcDispatcher.Builder builder =
                RpcDispatcher.builder().register(1, 1, 1, in -> "", (a, c) -> XdrEncodable.VOID);
        assertThrows(
                IllegalStateException.class, () -> builder.register(1, 1, 1, in -> "", (a, c) -> XdrEncodable.VOID));
    }
}
