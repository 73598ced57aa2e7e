package org.panamardma.nfs.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.nfs.Nfs3Result;
import org.panamardma.nfs.Nfs3ResultsXdr;
import org.panamardma.nfs.ReadResult;
import org.panamardma.oncrpc.AcceptStat;
import org.panamardma.oncrpc.AcceptedReply;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.tcp.RpcException;
import org.panamardma.oncrpc.tcp.RpcReplyException;
import org.panamardma.rpcrdma.RdmaProcedure;
import org.panamardma.rpcrdma.client.CallPlan;
import org.panamardma.rpcrdma.client.RpcRdmaReply;
import org.panamardma.xdr.XdrEncoder;

/** How the NFS adapter reads READ results the server placed through the Write list, or sent inline. */
class RdmaRpcTransportDecodeTest {
    static final AcceptedReply OK = AcceptedReply.success(1, OpaqueAuth.NONE);

    /** READ3resok with no attributes: status, post_op_attr false, count, eof, then the data's length word. */
    static MemorySegment readResults(int count, byte[] inlineData) {
        XdrEncoder out = new XdrEncoder(MemorySegment.ofArray(new byte[4096]));
        out.putInt(0).putBoolean(false).putInt(count).putBoolean(true);
        if (inlineData == null) {
            out.putInt(count); // placed: the length word only, no data, no roundup (RFC 8166 section 3.4.6)
        } else {
            out.putOpaque(inlineData, Integer.MAX_VALUE);
        }
        return out.written(0);
    }

    static RpcRdmaReply reply(MemorySegment results, RpcRdmaReply.Placement placement) {
        return new RpcRdmaReply(OK, results, List.of(placement), CallPlan.Kind.INLINE, RdmaProcedure.RDMA_MSG, false);
    }

    @Test
    void placedDataIsReadFromTheTargetWithoutACopy() throws Exception {
        MemorySegment target = MemorySegment.ofArray(new byte[64]);
        target.asSlice(0, 5).copyFrom(MemorySegment.ofArray("hello".getBytes()));
        ReadResult r = RdmaRpcTransport.decodeResults(
                        Nfs3ResultsXdr.readResults(target),
                        reply(readResults(5, null), new RpcRdmaReply.Placement(target, true, 5)),
                        "READ")
                .orThrow("READ");
        assertEquals(5, r.count());
        assertEquals("hello", new String(r.data().toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(target.heapBase(), r.data().heapBase());
        assertTrue(r.eof());
    }

    @Test
    void dataThatCameInlineIsCopiedIntoTheTarget() throws Exception {
        MemorySegment target = MemorySegment.ofArray(new byte[64]);
        Nfs3Result<ReadResult> r = RdmaRpcTransport.decodeResults(
                Nfs3ResultsXdr.readResults(target),
                reply(readResults(3, "abc".getBytes()), new RpcRdmaReply.Placement(target, false, 0)),
                "READ");
        assertEquals("abc", new String(target.asSlice(0, 3).toArray(ValueLayout.JAVA_BYTE)));
        assertEquals(3, r.orThrow("READ").count());
    }

    @Test
    void aLengthWordBeyondWhatTheServerWroteIsRefused() {
        MemorySegment target = MemorySegment.ofArray(new byte[64]);
        assertThrows(
                RpcException.class,
                () -> RdmaRpcTransport.decodeResults(
                        Nfs3ResultsXdr.readResults(target),
                        reply(readResults(10, null), new RpcRdmaReply.Placement(target, true, 9)),
                        "READ"));
    }

    @Test
    void leftoverBytesAndRpcErrorsAreErrors() {
        MemorySegment target = MemorySegment.ofArray(new byte[64]);
        MemorySegment results = readResults(3, "abc".getBytes());
        MemorySegment longer = MemorySegment.ofArray(new byte[(int) results.byteSize() + 4]);
        longer.copyFrom(results);
        assertThrows(
                RpcException.class,
                () -> RdmaRpcTransport.decodeResults(
                        Nfs3ResultsXdr.readResults(target),
                        reply(longer, new RpcRdmaReply.Placement(target, false, 0)),
                        "READ"));
        RpcRdmaReply denied = new RpcRdmaReply(
                AcceptedReply.failure(1, OpaqueAuth.NONE, AcceptStat.PROC_UNAVAIL),
                MemorySegment.ofArray(new byte[0]),
                List.of(),
                CallPlan.Kind.INLINE,
                RdmaProcedure.RDMA_MSG,
                false);
        RpcReplyException e = assertThrows(
                RpcReplyException.class,
                () -> RdmaRpcTransport.decodeResults(Nfs3ResultsXdr.readResults(target), denied, "READ"));
        assertEquals(AcceptStat.PROC_UNAVAIL, e.acceptStat());
    }
}
