package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.SendPath.Op;
import org.panamardma.verbs.ffi.ibv_mw_bind_info;
import org.panamardma.verbs.ffi.ibv_send_wr;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * The legacy path stores only the fields of its {@code ibv_send_wr} that changed since the last post, so a window
 * bind or a local invalidation, which write the struct too, must keep those remembered values true. Here the
 * provider's {@code post_send} is a Java upcall that records what each request carries, exactly as a provider
 * reads it: a SEND_WITH_IMM after a LOCAL_INV with the same immediate as the one before must carry that immediate,
 * not the invalidated key (imm_data and invalidate_rkey are one union), and one scatter/gather element again after
 * the bind's none. With the bind and invalidation storing their fields past the remembered values (main's e83688f
 * merged naively into the long-address path), the third request carried the key as its immediate.
 */
class LegacySendPathWindowTest {
    /** What one request held when the provider read it. */
    record Seen(
            long wrId,
            int opcode,
            int numSge,
            int flags,
            int immOrKey,
            long mw,
            int bindRkey,
            long bindMr,
            long bindAddr,
            long bindLength,
            int bindAccess) {}

    private static final List<Seen> SEEN = new ArrayList<>();

    @SuppressWarnings("unused") // the upcall's target
    private static int postSend(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        MemorySegment w = wr.reinterpret(ibv_send_wr.layout().byteSize());
        long info = ibv_send_wr.$anon1$bind_mw$bind_info$OFFSET;
        SEEN.add(new Seen(
                w.get(JAVA_LONG, ibv_send_wr.wr_id$OFFSET),
                w.get(JAVA_INT, ibv_send_wr.opcode$OFFSET),
                w.get(JAVA_INT, ibv_send_wr.num_sge$OFFSET),
                w.get(JAVA_INT, ibv_send_wr.send_flags$OFFSET),
                w.get(JAVA_INT, ibv_send_wr.$anon0$imm_data$OFFSET),
                w.get(ADDRESS, ibv_send_wr.$anon1$bind_mw$mw$OFFSET).address(),
                w.get(JAVA_INT, ibv_send_wr.$anon1$bind_mw$rkey$OFFSET),
                w.get(ADDRESS, info + ibv_mw_bind_info.mr$OFFSET).address(),
                w.get(JAVA_LONG, info + ibv_mw_bind_info.addr$OFFSET),
                w.get(JAVA_LONG, info + ibv_mw_bind_info.length$OFFSET),
                w.get(JAVA_INT, info + ibv_mw_bind_info.mw_access_flags$OFFSET)));
        return 0;
    }

    @Test
    void aSendWithImmediateAfterAnInvalidationOrABindCarriesItsOwnFields() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment postSendFn = Linker.nativeLinker()
                    .upcallStub(
                            MethodHandles.lookup()
                                    .findStatic(
                                            LegacySendPathWindowTest.class,
                                            "postSend",
                                            MethodType.methodType(
                                                    int.class,
                                                    MemorySegment.class,
                                                    MemorySegment.class,
                                                    MemorySegment.class)),
                            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS),
                            arena);
            LegacySendPath path = new LegacySendPath(
                    postSendFn,
                    arena.allocate(64, 8),
                    "test QP",
                    16,
                    arena.allocate(64, 8),
                    arena.allocate(ibv_send_wr.layout()),
                    arena.allocate(16 * 4, 8),
                    arena.allocate(ADDRESS),
                    arena.allocate(ibv_send_wr.layout(), SendChain.MAX_REQUESTS),
                    arena.allocate(16L * SendChain.MAX_REQUESTS, 8),
                    false);
            MemorySegment buffer = arena.allocate(64, 8);
            MemorySegment mw = arena.allocate(64, 8);
            MemorySegment mr = arena.allocate(64, 8);
            int immediate = 0x01020304;
            int key = 0x0a0b0c0d;
            int signaled = verbs_h.IBV_SEND_SIGNALED;
            SEEN.clear();

            path.post(Op.SEND_WITH_IMM, 1, signaled, 0, 0, immediate, 0, 0, buffer.address(), 8, 7);
            path.postLocalInvalidate(2, signaled, key);
            path.post(Op.SEND_WITH_IMM, 3, signaled, 0, 0, immediate, 0, 0, buffer.address(), 8, 7);
            path.postBindWindow(4, 0, mw, 0x1234, mr, buffer.address() + 8, 32, verbs_h.IBV_ACCESS_REMOTE_READ);
            path.post(Op.SEND_WITH_IMM, 5, signaled, 0, 0, immediate, 0, 0, buffer.address(), 8, 7);

            assertEquals(5, SEEN.size());
            int wireImmediate = Integer.reverseBytes(immediate); // imm_data is big-endian in the struct
            assertRequest(SEEN.get(0), 1, verbs_h.IBV_WR_SEND_WITH_IMM, 1, signaled, wireImmediate);
            // invalidate_rkey in host byte order, no data
            assertRequest(SEEN.get(1), 2, verbs_h.IBV_WR_LOCAL_INV, 0, signaled, key);
            // the point of the test: the immediate again, not the key the invalidation left in the union
            assertRequest(SEEN.get(2), 3, verbs_h.IBV_WR_SEND_WITH_IMM, 1, signaled, wireImmediate);
            // a bind: no data, no immediate (rxe's validate_send_wr refuses either), unsignaled, its own fields
            Seen bind = SEEN.get(3);
            assertRequest(bind, 4, verbs_h.IBV_WR_BIND_MW, 0, 0, 0);
            assertEquals(mw.address(), bind.mw());
            assertEquals(0x1234, bind.bindRkey());
            assertEquals(mr.address(), bind.bindMr());
            assertEquals(buffer.address() + 8, bind.bindAddr());
            assertEquals(32, bind.bindLength());
            assertEquals(verbs_h.IBV_ACCESS_REMOTE_READ, bind.bindAccess());
            assertRequest(SEEN.get(4), 5, verbs_h.IBV_WR_SEND_WITH_IMM, 1, signaled, wireImmediate);
        }
    }

    private static void assertRequest(Seen seen, long wrId, int opcode, int numSge, int flags, int immOrKey) {
        assertEquals(wrId, seen.wrId(), "wr_id");
        assertEquals(opcode, seen.opcode(), "opcode of " + wrId);
        assertEquals(numSge, seen.numSge(), "num_sge of " + wrId);
        assertEquals(flags, seen.flags(), "send_flags of " + wrId);
        assertEquals(immOrKey, seen.immOrKey(), "imm_data / invalidate_rkey of " + wrId);
    }
}
