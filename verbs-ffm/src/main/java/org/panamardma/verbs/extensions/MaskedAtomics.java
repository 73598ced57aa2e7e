package org.panamardma.verbs.extensions;

import org.panamardma.verbs.RdmaException;

/**
 * RFC 7306 section 5.1's masked atomics — field-wise FetchAdd and masked CmpSwap — which almost no RNIC executes
 * natively, built as compare-and-swap loops over a native 64-bit CmpSwap ({@link RemoteWord}).
 *
 * <p>Each operation is linearizable: it takes effect at its one successful CmpSwap, and returns the value the
 * word had just before (the RFC's "Original Remote Data Value"). When the masked compare fails, the word is left
 * unchanged; a CmpSwap of the observed value with itself still confirms, atomically, that it was the original.
 * Uncontended, an operation costs two round trips (an atomic read — CmpSwap 0 with 0, which changes nothing —
 * then the swap), one if the caller passes a correct guess; each lost race costs one more.
 */
public final class MaskedAtomics {
    private MaskedAtomics() {}

    /**
     * The new value of masked FetchAdd: fields end at the set bits of {@code addMask}; no carry crosses them.
     *
     * @param original the word before the operation
     * @param add      the value added field by field
     * @param addMask  a set bit marks the most significant bit of a field (its carry out is discarded); 0: one 64-bit
     *                 field, a plain add
     * @return the word after the operation (RFC 7306 section 5.1.1)
     */
    public static long fieldwiseAdd(long original, long add, long addMask) {
        // SWAR addition: add with each field's top bit cleared (a carry into it stops there, both operands have 0
        // at it), then put the top bits back as the XOR of both operands' top bits and that carry: the carry out
        // of a field's top bit is dropped, as the RFC's "carry = carry && !(Add Mask & bit_location)" says.
        return ((original & ~addMask) + (add & ~addMask)) ^ ((original ^ add) & addMask);
    }

    /**
     * The new value of masked CmpSwap (RFC 7306 section 5.1.2).
     *
     * @param original    the word before the operation
     * @param compare     the value compared under {@code compareMask}
     * @param compareMask the bits compared; 0 compares nothing (the swap always happens)
     * @param swap        the value written under {@code swapMask}
     * @param swapMask    the bits replaced; the others keep their original value
     * @return the word after the operation: {@code original} unchanged when the masked compare fails
     */
    public static long maskedSwap(long original, long compare, long compareMask, long swap, long swapMask) {
        return ((compare ^ original) & compareMask) == 0 ? (original & ~swapMask) | (swap & swapMask) : original;
    }

    /**
     * Masked FetchAdd on {@code word}; returns the original value.
     *
     * @param word    the 64-bit word operated on
     * @param add     the value added field by field
     * @param addMask a set bit marks the most significant bit of a field (RFC 7306 section 5.1.1)
     * @return the word's value just before the operation took effect (the RFC's Original Remote Data Value)
     * @throws RdmaException what {@link RemoteWord#compareSwap} throws; the word is then unchanged by this operation or
     *                       changed once, never twice
     */
    public static long fetchAdd(RemoteWord word, long add, long addMask) throws RdmaException {
        return fetchAdd(word, add, addMask, 0L);
    }

    /**
     * Masked FetchAdd starting from a guess of the current value (a right guess saves a round trip).
     *
     * @param word    the 64-bit word operated on
     * @param add     the value added field by field
     * @param addMask a set bit marks the most significant bit of a field (RFC 7306 section 5.1.1)
     * @param guess   the caller's idea of the current value; a right one saves the first round trip
     * @return the word's value just before the operation took effect (the RFC's Original Remote Data Value)
     * @throws RdmaException what {@link RemoteWord#compareSwap} throws; the word is then unchanged by this operation or
     *                       changed once, never twice
     */
    public static long fetchAdd(RemoteWord word, long add, long addMask, long guess) throws RdmaException {
        long expected = guess;
        while (true) {
            long desired = fieldwiseAdd(expected, add, addMask);
            long actual = word.compareSwap(expected, desired);
            if (actual == expected) {
                return actual;
            }
            expected = actual;
        }
    }

    /**
     * Masked CmpSwap on {@code word}; returns the original value.
     *
     * @param word        the 64-bit word operated on
     * @param compare     the value compared under {@code compareMask}
     * @param compareMask the bits compared; 0 always swaps
     * @param swap        the value written under {@code swapMask}
     * @param swapMask    the bits replaced; the others keep their value
     * @return the word's value just before (the swap happened iff it matches {@code compare} under {@code compareMask})
     * @throws RdmaException what {@link RemoteWord#compareSwap} throws; the word is then unchanged by this operation or
     *                       changed once, never twice
     */
    public static long compareSwap(RemoteWord word, long compare, long compareMask, long swap, long swapMask)
            throws RdmaException {
        return compareSwap(word, compare, compareMask, swap, swapMask, 0L);
    }

    /**
     * Masked CmpSwap on {@code word}, its first compare-and-swap expecting {@code guess} (the caller's idea of the
     * word; a wrong guess costs one round trip more); returns the original value.
     *
     * @param word        the 64-bit word operated on
     * @param compare     the value compared under {@code compareMask}
     * @param compareMask the bits compared; 0 always swaps
     * @param swap        the value written under {@code swapMask}
     * @param swapMask    the bits replaced; the others keep their value
     * @param guess       the caller's idea of the current value; a right one saves the first round trip
     * @return the word's value just before (the swap happened iff it matches {@code compare} under {@code compareMask})
     * @throws RdmaException what {@link RemoteWord#compareSwap} throws; the word is then unchanged by this operation or
     *                       changed once, never twice
     */
    public static long compareSwap(
            RemoteWord word, long compare, long compareMask, long swap, long swapMask, long guess)
            throws RdmaException {
        long expected = guess;
        while (true) {
            long desired = maskedSwap(expected, compare, compareMask, swap, swapMask);
            long actual = word.compareSwap(expected, desired);
            if (actual == expected) {
                return actual;
            }
            expected = actual;
        }
    }
}
