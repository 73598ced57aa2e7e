package org.panamardma.verbs.connection.agent;

/**
 * An Atomic Operation Request (RFC 7306 section 5.2.1, Figure 4), decoded.
 *
 * @param operation     the Atomic Operation Code
 * @param requestId     the Request Identifier (32 bits, unsigned), reflected in the response
 * @param stag          the Remote STag: the rkey of the responder's region
 * @param taggedOffset  the Remote Tagged Offset: with verbs' virtually addressed regions, the address itself
 * @param addOrSwap     Add Data of FetchAdd, Swap Data of CmpSwap
 * @param addOrSwapMask Add Mask (bits that end a field; 0: one 64-bit add) or Swap Mask (bits swapped)
 * @param compare       Compare Data of CmpSwap (0 for FetchAdd)
 * @param compareMask   Compare Mask of CmpSwap (all ones for FetchAdd)
 */
record AtomicRequest(
        Operation operation,
        long requestId,
        int stag,
        long taggedOffset,
        long addOrSwap,
        long addOrSwapMask,
        long compare,
        long compareMask) {

    /** Atomic Operation Codes (RFC 7306 Figure 5; 0x1 is reserved, the rest unassigned). */
    enum Operation {
        FETCH_ADD(0x0),
        COMPARE_SWAP(0x2);

        final int code;

        Operation(int code) {
            this.code = code;
        }

        /** @return the operation of {@code code}, or null for one RFC 7306 does not define */
        static Operation of(int code) {
            return switch (code) {
                case 0x0 -> FETCH_ADD;
                case 0x2 -> COMPARE_SWAP;
                default -> null;
            };
        }
    }

    /** A plain FetchAdd as the requester sends it: no field boundaries, compare fields as section 5.2.1 says. */
    static AtomicRequest fetchAdd(long requestId, int stag, long address, long add, long addMask) {
        return new AtomicRequest(Operation.FETCH_ADD, requestId, stag, address, add, addMask, 0L, -1L);
    }

    static AtomicRequest compareSwap(
            long requestId, int stag, long address, long compare, long compareMask, long swap, long swapMask) {
        return new AtomicRequest(
                Operation.COMPARE_SWAP, requestId, stag, address, swap, swapMask, compare, compareMask);
    }

    AtomicRequest withRequestId(long id) {
        return new AtomicRequest(operation, id, stag, taggedOffset, addOrSwap, addOrSwapMask, compare, compareMask);
    }

    /** The word's new value given its original value: RFC 7306 sections 5.1.1 and 5.1.2. */
    long apply(long original) {
        return operation == Operation.FETCH_ADD
                ? AtomicOps.fieldwiseAdd(original, addOrSwap, addOrSwapMask)
                : AtomicOps.maskedSwap(original, compare, compareMask, addOrSwap, addOrSwapMask);
    }
}
