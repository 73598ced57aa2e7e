package org.panamardma.rpcrdma.client;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.rpcrdma.CreditWindow;
import org.panamardma.rpcrdma.DecodedHeader;
import org.panamardma.rpcrdma.RdmaError;
import org.panamardma.rpcrdma.RdmaMsg;
import org.panamardma.rpcrdma.RpcRdmaHeader;
import org.panamardma.rpcrdma.RpcRdmaHeaderDecoder;
import org.panamardma.rpcrdma.RpcRdmaHeaderException;
import org.panamardma.testing.AllocationBudget;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * Fuzzes the client's handling of a received reply (FUZZING.md) as {@code RpcRdmaClient.onMessage} does it: the
 * transport header (or Linux's ERR_VERS echoing another version), the credit window fed the peer's credit value,
 * then {@link ReplyDecoding#decode} for a call that offered three placement targets (two as Write chunks, one
 * through a bounce buffer) and an 8 KiB Reply chunk holding a reply. Typed refusals: {@link RpcRdmaHeaderException}
 * and {@link RpcRdmaException}. {@code decode} wraps every RuntimeException into {@link RpcRdmaException.BadReply}
 * on purpose, which would hide a crash: a BadReply whose cause is not one of the deliberate refusals (an
 * XdrException from the RPC header, an IllegalStateException for inconsistent chunks) is a finding.
 */
class ReplyDecodingFuzzTest {
    private static final RpcRdmaHeaderDecoder DECODER = new RpcRdmaHeaderDecoder();
    private static final MemorySegment REPLY_CHUNK = MemorySegment.ofArray(new byte[8192]);
    private static final List<MemorySegment> TARGETS = List.of(
            MemorySegment.ofArray(new byte[4096]),
            MemorySegment.ofArray(new byte[256]),
            MemorySegment.ofArray(new byte[1024]));
    private static final List<MemorySegment> BOUNCES = Arrays.asList(MemorySegment.ofArray(new byte[4096]), null, null);
    private static final CallPlan PLAN = new CallPlan(
            CallPlan.Kind.INLINE,
            MemorySegment.ofArray(new byte[0]),
            List.of(),
            List.of(true, false, true),
            REPLY_CHUNK.byteSize());
    private static final ReplyExpectation EXPECTATION = new ReplyExpectation(8192, TARGETS);

    static {
        XdrEncoder out = new XdrEncoder(REPLY_CHUNK);
        RpcMessageCodec.encode(AcceptedReply.success(0x5eed_0003, OpaqueAuth.NONE), out);
        out.putInt(0).putOpaque(new byte[100], 1024);
        BOUNCES.get(0).fill((byte) 0x5a);
    }

    /**
     * The reply's bytes are copied once (inline message or Reply chunk contents, at most the input or the 8 KiB
     * chunk), the header decode costs 32 per input byte (RpcRdmaHeaderFuzzTest), placements a few objects each; the
     * constant covers the chunk copy and a refusal's exception chain.
     */
    private static long bound(int inputLength) {
        return (64 << 10) + REPLY_CHUNK.byteSize() + 40L * inputLength;
    }

    @FuzzTest
    void decode(byte[] data) throws Exception {
        MemorySegment message = MemorySegment.ofArray(data);
        CreditWindow<Integer> window = new CreditWindow<>(32);
        AllocationBudget.within("ReplyDecoding.decode", bound(data.length), () -> {
            RpcRdmaHeader header;
            DecodedHeader decoded = null;
            try {
                decoded = DECODER.decode(message);
                header = decoded.header();
            } catch (RpcRdmaHeaderException e) {
                Optional<RdmaError.VersionMismatch> errVers = ReplyDecoding.errVersEchoingOurVersion(message);
                if (errVers.isEmpty()) {
                    return;
                }
                header = errVers.get();
            }
            window.offer(1);
            window.replyReceived(header.credits());
            assertTrue(window.grant() >= 1, "credit grant " + window.grant());
            try {
                RpcRdmaReply reply = ReplyDecoding.decode(
                        "fuzz",
                        header,
                        header instanceof RdmaMsg && decoded != null ? decoded.rpcMessage(message) : null,
                        PLAN,
                        EXPECTATION,
                        REPLY_CHUNK,
                        BOUNCES);
                assertTrue(reply.placements().size() == TARGETS.size(), "placements");
                reply.placements()
                        .forEach(p -> assertTrue(
                                p.length() >= 0 && p.length() <= p.target().byteSize(),
                                "placement of " + p.length() + " bytes into "
                                        + p.target().byteSize()));
            } catch (RpcRdmaException.BadReply bad) {
                Throwable cause = bad.getCause();
                if (!(cause instanceof XdrException || cause instanceof IllegalStateException)) {
                    throw new AssertionError("a crash hidden as a bad reply: " + cause, cause);
                }
            } catch (RpcRdmaException refused) {
                // ERR_VERS, ERR_CHUNK and other RDMA_ERRORs: typed
            }
        });
    }
}
