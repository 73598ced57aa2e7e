package org.panamardma.verbs.trusted;

import java.lang.foreign.MemorySegment;

/**
 * Spans of caller memory for registration: one segment covering pieces the caller handed over separately, so that
 * one {@code ibv_reg_mr} serves them all (a registration cache that merges overlapping registrations, as UCX's
 * rcache does). Making a segment larger than the ones given is a restricted operation of FFM
 * ({@code MemorySegment.reinterpret}); it lives here, in the module that is granted native access, and only ever
 * covers memory the caller's own segments already cover: the two segments must belong to the same arena (one scope,
 * alive) and overlap or touch, so the span has no gap of memory nobody vouched for.
 *
 * <p>Because it performs a restricted operation on this module's behalf, its package is exported to
 * {@code org.panamardma.rpcrdma} (whose registration cache uses it) and to no one else: code that was not granted
 * native access must not get, through this module, what FFM refuses it (issue 25, item 7).
 */
public final class Spans {
    private Spans() {}

    /**
     * The smallest segment covering {@code a} and {@code b}, in their common scope; read-only if either is.
     *
     * @param a a native segment
     * @param b a native segment of the same arena, overlapping or touching {@code a}
     * @return the span, from the lower start to the higher end
     * @throws IllegalArgumentException if either is a heap segment, their scopes differ, or they neither overlap
     *     nor touch (the span would cover memory neither segment covers)
     * @throws IllegalStateException if their arena is closed
     */
    public static MemorySegment union(MemorySegment a, MemorySegment b) {
        if (!a.isNative() || !b.isNative()) {
            throw new IllegalArgumentException("only native segments span native memory");
        }
        if (!a.scope().equals(b.scope())) {
            throw new IllegalArgumentException("segments of different arenas have no span");
        }
        if (!a.scope().isAlive()) {
            throw new IllegalStateException("the segments' arena is closed");
        }
        long aStart = a.address();
        long aEnd = aStart + a.byteSize();
        long bStart = b.address();
        long bEnd = bStart + b.byteSize();
        if (aStart > bEnd || bStart > aEnd) {
            throw new IllegalArgumentException(String.format(
                    "segments [0x%x, 0x%x) and [0x%x, 0x%x) neither overlap nor touch", aStart, aEnd, bStart, bEnd));
        }
        MemorySegment low = aStart <= bStart ? a : b;
        MemorySegment span = low.reinterpret(Math.max(aEnd, bEnd) - low.address());
        return (a.isReadOnly() || b.isReadOnly()) && !span.isReadOnly() ? span.asReadOnly() : span;
    }
}
