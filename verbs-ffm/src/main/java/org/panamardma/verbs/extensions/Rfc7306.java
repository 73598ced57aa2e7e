package org.panamardma.verbs.extensions;

/**
 * The reference model: RFC 7306 section 5.1's pseudo-code, transcribed literally (bit by bit), used to check the
 * fast implementations of {@link MaskedAtomics}. Not for production use: it is the specification, executable.
 */
public final class Rfc7306 {
    private Rfc7306() {}

    /**
     * Section 5.1.1, masked FetchAdd: the new remote value. A bit set in {@code addMask} marks the most significant
     * bit of a field; the carry out of that bit is discarded. A zero mask is a plain 64-bit add.
     *
     * @param originalRemoteDataValue the word before the operation
     * @param addData                 the value added field by field
     * @param addMask                 a set bit marks the most significant bit of a field
     * @return the new remote value
     */
    public static long maskedFetchAddResult(long originalRemoteDataValue, long addData, long addMask) {
        long bitLocation = 1;
        long carry = 0;
        long remoteDataValue = 0;
        for (int bit = 0; bit <= 63; bit++) {
            if (bit != 0) {
                bitLocation = bitLocation << 1;
            }
            long val1 = (originalRemoteDataValue & bitLocation) >>> bit;
            long val2 = (addData & bitLocation) >>> bit;
            long sum = carry + val1 + val2;
            carry = (sum & 2) >> 1;
            sum = sum & 1;
            if (sum != 0) {
                remoteDataValue |= bitLocation;
            }
            carry = (carry != 0 && (addMask & bitLocation) == 0) ? 1 : 0;
        }
        return remoteDataValue;
    }

    /**
     * Section 5.1.2, masked CmpSwap: the new remote value.
     *
     * @param originalRemoteDataValue the word before the operation
     * @param compareData             the value compared under {@code compareMask}
     * @param compareMask             the bits compared
     * @param swapData                the value written under {@code swapMask}
     * @param swapMask                the bits replaced
     * @return the new remote value: unchanged if the masked compare fails
     */
    public static long maskedCompareSwapResult(
            long originalRemoteDataValue, long compareData, long compareMask, long swapData, long swapMask) {
        if (((compareData ^ originalRemoteDataValue) & compareMask) == 0) {
            return (originalRemoteDataValue & ~swapMask) | (swapData & swapMask);
        }
        return originalRemoteDataValue;
    }
}
