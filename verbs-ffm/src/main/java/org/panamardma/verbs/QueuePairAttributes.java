package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;
import org.panamardma.verbs.ffi.ibv_qp_attr;
import org.panamardma.verbs.ffi.ibv_qp_init_attr;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * A queue pair's attributes through {@code ibv_query_qp} and {@code ibv_modify_qp}: its state, and the transitions
 * that {@link PreparedQueuePair} (RESET, INIT, RTR, RTS, ERR) and {@link QueuePair#reset()} make. Off the data
 * path: each call allocates its attribute structs in a confined arena of its own.
 */
final class QueuePairAttributes {
    private QueuePairAttributes() {}

    /** ibv_query_qp of the state of {@code qp} (named {@code description} in errors); the caller keeps it open. */
    static QpState state(MemorySegment qp, String description) throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            MemorySegment init = arena.allocate(ibv_qp_init_attr.layout());
            int rc = verbs_h.ibv_query_qp(qp, attr, verbs_h.IBV_QP_STATE, init);
            if (rc != 0) {
                throw new RdmaException("ibv_query_qp(" + description + ")", rc);
            }
            return QpState.of(attr.get(JAVA_INT, ibv_qp_attr.qp_state$OFFSET));
        }
    }

    /** ibv_modify_qp of {@code qp} to {@code state} with {@code mask}; {@code fill} sets the other attributes. */
    static void modify(MemorySegment qp, String description, int state, int mask, Consumer<MemorySegment> fill)
            throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_qp_attr.layout());
            attr.set(JAVA_INT, ibv_qp_attr.qp_state$OFFSET, state);
            if (fill != null) {
                fill.accept(attr);
            }
            int rc = verbs_h.ibv_modify_qp(qp, attr, mask);
            if (rc != 0) {
                throw new RdmaException("ibv_modify_qp(" + description + " to " + QpState.of(state) + ")", rc);
            }
        }
    }
}
