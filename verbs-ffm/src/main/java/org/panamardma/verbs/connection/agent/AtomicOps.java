package org.panamardma.verbs.connection.agent;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.panamardma.verbs.extensions.MaskedAtomics;

/**
 * The responder's execution of RFC 7306's operations on its own memory, with the JVM's atomic access to native
 * memory: a {@link VarHandle} of an aligned 64-bit word of a {@link MemorySegment}, whose atomic access modes are
 * the processor's locked instructions ({@code lock xadd}, {@code lock cmpxchg} on x86-64).
 *
 * <p><b>Atomicity.</b> Every operation is one read-modify-write that no other atomic access to the word can split:
 * not another agent operation (of this connection or any other, in this JVM or another process mapping the same
 * memory) and not the responder's own CPU when it uses atomic access (a {@code VarHandle}'s getAndAdd,
 * compareAndSet..., {@code AtomicLong} semantics). That is stronger than {@code IBV_ATOMIC_HCA} (rxe: atomic only
 * against other atomics through the same device, executed under a kernel lock with plain loads and stores) and
 * what {@code IBV_ATOMIC_GLOBAL} promises with respect to the CPU. What it does not cover: plain (non-atomic)
 * stores of the responder's CPU, which may be lost under a concurrent masked operation's compare-and-swap loop as
 * under any CAS, and a device's own atomics on the same word (an rxe connection without the agent), which do not
 * take the processor's lock.
 *
 * <p>The word is read and written in the target memory's byte order, native here, as RFC 7306 sections 5.1.1 and
 * 5.1.2 say ("performed in the endian format of the target memory").
 */
final class AtomicOps {
    private AtomicOps() {}

    /** Aligned 64-bit access (coordinates: segment, offset): atomic modes need the alignment the caller checked. */
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    /** RFC 7306 section 5.1.1: the sum field by field; a set bit of {@code addMask} ends a field. */
    static long fieldwiseAdd(long original, long add, long addMask) {
        return MaskedAtomics.fieldwiseAdd(original, add, addMask);
    }

    /** RFC 7306 section 5.1.2: masked compare, then masked swap. */
    static long maskedSwap(long original, long compare, long compareMask, long swap, long swapMask) {
        return MaskedAtomics.maskedSwap(original, compare, compareMask, swap, swapMask);
    }

    /**
     * Executes {@code r} on the 8-byte aligned word at {@code offset} of {@code memory} (both checked by the caller)
     * and returns the word's original value. The plain forms take one locked instruction; masked ones loop on
     * compare-and-exchange until no other atomic access came between the read and the write, and return the value
     * they replaced (or found: an unmet compare writes nothing, and the volatile read that saw the value is then the
     * operation's linearization point).
     */
    static long execute(MemorySegment memory, long offset, AtomicRequest r) {
        if (r.operation() == AtomicRequest.Operation.FETCH_ADD && r.addOrSwapMask() == 0) {
            return (long) WORD.getAndAdd(memory, offset, r.addOrSwap());
        }
        if (r.operation() == AtomicRequest.Operation.COMPARE_SWAP
                && r.compareMask() == -1L
                && r.addOrSwapMask() == -1L) {
            return (long) WORD.compareAndExchange(memory, offset, r.compare(), r.addOrSwap());
        }
        long original = (long) WORD.getVolatile(memory, offset);
        while (true) {
            long next = r.apply(original);
            if (next == original) {
                return original;
            }
            long witness = (long) WORD.compareAndExchange(memory, offset, original, next);
            if (witness == original) {
                return original;
            }
            original = witness;
        }
    }
}
