package org.panamardma.xdr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class XdrSizeTest {
    @Test
    void roundUpAndPadding() {
        long[][] cases = {{0, 0, 0}, {1, 4, 3}, {2, 4, 2}, {3, 4, 1}, {4, 4, 0}, {5, 8, 3}, {4095, 4096, 1}};
        for (long[] c : cases) {
            assertEquals(c[1], Xdr.roundUp(c[0]), "roundUp(" + c[0] + ")");
            assertEquals(c[2], Xdr.padding(c[0]), "padding(" + c[0] + ")");
        }
        assertThrows(IllegalArgumentException.class, () -> Xdr.roundUp(-1));
        assertThrows(ArithmeticException.class, () -> Xdr.roundUp(Long.MAX_VALUE));
    }

    @Test
    void compositeSizes() {
        assertEquals(4, Xdr.opaqueSize(0));
        assertEquals(12, Xdr.opaqueSize(5));
        assertEquals(8, Xdr.fixedOpaqueSize(5));
        assertEquals(4 + 8, Xdr.stringSize("\u00e9t\u00e9")); // 5 UTF-8 bytes, padded to 8
        assertEquals(4 + 3 * 16, Xdr.arraySize(3, 16));
        assertEquals(4, Xdr.optionalSize(false, 100));
        assertEquals(104, Xdr.optionalSize(true, 100));
    }
}
