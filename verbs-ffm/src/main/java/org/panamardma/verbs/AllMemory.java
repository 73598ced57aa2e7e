package org.panamardma.verbs;

import java.lang.foreign.MemorySegment;

/**
 * One segment over every address, for the data path's stores into memory whose life the library guarantees by
 * other means: the QP's scratch and the provider's {@code ibv_qp_ex}, alive while the QP's {@link CallGate} admits
 * the call; {@link WorkCompletions}' array, alive while the object is reachable. Why: a store through the scratch's
 * own segment (a field of the QP) has the JIT load that segment's base and size and check both, about 1 ns a store;
 * through this constant segment the checks fold away (measured on the stub provider). What a bounds check caught,
 * an offset beyond the struct, cannot happen here: every offset is a constant of the struct's layout, checked against
 * the C headers by the ABI check.
 */
final class AllMemory {
    private AllMemory() {}

    static final MemorySegment EVERYWHERE = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);
}
