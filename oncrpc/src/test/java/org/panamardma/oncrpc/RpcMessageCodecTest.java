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
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

class RpcMessageCodecTest {

    static byte[] encode(RpcMessage message) {
        byte[] buffer = new byte[RpcMessageCodec.size(message)];
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(buffer));
        RpcMessageCodec.encode(message, out);
        assertEquals(buffer.length, out.position(), "size() predicts the encoding of " + message);
        return buffer;
    }

    static RpcMessage decode(byte[] bytes) {
        XdrDecoder in = new XdrDecoder(MemorySegment.ofArray(bytes));
        RpcMessage message = RpcMessageCodec.decode(in);
        assertTrue(in.atEnd(), "header decode consumed everything");
        return message;
    }

    @Test
    void callWithAuthSysHasTheRfc5531Layout() {
        AuthSysParms parms = new AuthSysParms(0x11223344, "host", 1000, 100, List.of(4, 24));
        RpcCall call = RpcCall.of(0xCAFE0001, 100003, 3, 6, parms.toOpaqueAuth(), OpaqueAuth.NONE);
        byte[] expected = words(
                0xCAFE0001, // xid
                0, // msg_type CALL
                2, // rpcvers
                100003, // prog (NFS)
                3, // vers
                6, // proc
                1, // cred flavor AUTH_SYS
                32, // cred body length: stamp 4 + name 4+4 + uid 4 + gid 4 + gids 4+8
                0x11223344, // stamp
                4, // machinename length
                0x686F7374, // "host"
                1000, // uid
                100, // gid
                2, // gids count
                4,
                24, // gids
                0, // verf flavor AUTH_NONE
                0); // verf body length
        assertArrayEquals(expected, encode(call), Bytes.hex(encode(call)));
        RpcCall decoded = (RpcCall) decode(expected);
        assertEquals(call, decoded);
        assertEquals(parms, AuthSysParms.from(decoded.credential()));
    }

    @Test
    void everyAcceptedReplyRoundTripsWithItsExactWords() {
        OpaqueAuth none = OpaqueAuth.NONE;
        record Case(AcceptedReply reply, int[] words) {}
        List<Case> cases = new ArrayList<>();
        // xid, REPLY, MSG_ACCEPTED, verf flavor, verf length, accept_stat [, low, high]
        cases.add(new Case(AcceptedReply.success(7, none), new int[] {7, 1, 0, 0, 0, 0}));
        cases.add(new Case(AcceptedReply.failure(7, none, AcceptStat.PROG_UNAVAIL), new int[] {7, 1, 0, 0, 0, 1}));
        cases.add(new Case(AcceptedReply.progMismatch(7, none, 2, 4), new int[] {7, 1, 0, 0, 0, 2, 2, 4}));
        cases.add(new Case(AcceptedReply.failure(7, none, AcceptStat.PROC_UNAVAIL), new int[] {7, 1, 0, 0, 0, 3}));
        cases.add(new Case(AcceptedReply.failure(7, none, AcceptStat.GARBAGE_ARGS), new int[] {7, 1, 0, 0, 0, 4}));
        cases.add(new Case(AcceptedReply.failure(7, none, AcceptStat.SYSTEM_ERR), new int[] {7, 1, 0, 0, 0, 5}));
        assertEquals(AcceptStat.values().length, cases.size(), "every accept_stat covered");
        for (Case c : cases) {
            assertArrayEquals(words(c.words()), encode(c.reply()), c.reply().toString());
            assertEquals(c.reply(), decode(words(c.words())));
        }
    }

    @Test
    void everyRejectedReplyRoundTripsWithItsExactWords() {
        // xid, REPLY, MSG_DENIED, RPC_MISMATCH, low, high
        assertArrayEquals(words(9, 1, 1, 0, 2, 2), encode(RejectedReply.rpcMismatch(9, 2, 2)));
        assertEquals(RejectedReply.rpcMismatch(9, 2, 2), decode(words(9, 1, 1, 0, 2, 2)));
        for (AuthStat why : AuthStat.values()) {
            // xid, REPLY, MSG_DENIED, AUTH_ERROR, auth_stat
            int[] expected = {9, 1, 1, 1, why.value()};
            assertArrayEquals(words(expected), encode(RejectedReply.authError(9, why)), why.name());
            assertEquals(RejectedReply.authError(9, why), decode(words(expected)));
        }
        assertEquals(15, AuthStat.values().length, "RFC 5531 defines auth_stat 0..14");
    }

    @Test
    void verifierBodiesRoundTrip() {
        OpaqueAuth verifier = new OpaqueAuth(AuthFlavor.RPCSEC_GSS, new byte[] {1, 2, 3, 4, 5});
        AcceptedReply reply = AcceptedReply.success(1, verifier);
        assertArrayEquals(words(1, 1, 0, 6, 5, 0x01020304, 0x05000000, 0), encode(reply));
        assertEquals(reply, decode(encode(reply)));
    }

    @Test
    void callOfAnotherRpcVersionStillDecodes() {
        RpcCall call = new RpcCall(3, 3, 100000, 2, 0, OpaqueAuth.NONE, OpaqueAuth.NONE);
        assertEquals(call, decode(encode(call)));
    }

    private static void rejected(XdrException.Reason reason, long offset, String text, int... words) {
        XdrException e = assertThrows(
                XdrException.class, () -> RpcMessageCodec.decode(new XdrDecoder(MemorySegment.ofArray(words(words)))));
        assertEquals(reason, e.reason(), e.getMessage());
        assertEquals(offset, e.offset(), e.getMessage());
        assertTrue(e.getMessage().contains(text), e.getMessage());
    }

    @Test
    void malformedHeadersAreRejectedWithTheirOffset() {
        rejected(XdrException.Reason.INVALID_VALUE, 4, "msg_type", 1, 2);
        rejected(XdrException.Reason.INVALID_VALUE, 8, "reply_stat", 1, 1, 2);
        rejected(XdrException.Reason.INVALID_VALUE, 20, "accept_stat", 1, 1, 0, 0, 0, 6);
        rejected(XdrException.Reason.INVALID_VALUE, 12, "reject_stat", 1, 1, 1, 2);
        rejected(XdrException.Reason.INVALID_VALUE, 16, "auth_stat", 1, 1, 1, 1, 15);
        rejected(XdrException.Reason.TRUNCATED, 28, "mismatch high", 1, 1, 0, 0, 0, 2, 2); // PROG_MISMATCH without high
        rejected(XdrException.Reason.TRUNCATED, 8, "rpcvers", 1, 0);
        // credential body of 401 bytes
        rejected(XdrException.Reason.LIMIT_EXCEEDED, 28, "maximum 400", 1, 0, 2, 1, 1, 0, 1, 401);
    }

    @Test
    void replyFieldsMustMatchTheirStatus() {
        assertThrows(
                IllegalArgumentException.class,
                () -> new AcceptedReply(1, OpaqueAuth.NONE, AcceptStat.SUCCESS, new MismatchInfo(1, 2)));
        assertThrows(
                IllegalArgumentException.class,
                () -> new AcceptedReply(1, OpaqueAuth.NONE, AcceptStat.PROG_MISMATCH, null));
        assertThrows(
                IllegalArgumentException.class,
                () -> new RejectedReply(1, RejectStat.AUTH_ERROR, new MismatchInfo(1, 2), AuthStat.AUTH_BADCRED));
        assertThrows(IllegalArgumentException.class, () -> new RejectedReply(1, RejectStat.RPC_MISMATCH, null, null));
        assertThrows(IllegalArgumentException.class, () -> new OpaqueAuth(0, new byte[401]));
    }
}
