package org.panamardma.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** A fuzz input splits into as many operation bytes as its first byte says, at most what there is, and the rest. */
class OpsAndDataTest {
    @Test
    void theCountByteSaysHowManyOperationsFollow() {
        OpsAndData s = OpsAndData.of(new byte[] {2, 10, 11, 20, 21, 22});
        assertArrayEquals(new byte[] {10, 11}, s.ops());
        assertArrayEquals(new byte[] {20, 21, 22}, s.data());
    }

    @Test
    void aCountBeyondTheInputTakesWhatThereIsAndLeavesNoData() {
        OpsAndData s = OpsAndData.of(new byte[] {(byte) 0xFF, 10, 11});
        assertArrayEquals(new byte[] {10, 11}, s.ops());
        assertArrayEquals(new byte[0], s.data());
    }

    @Test
    void anEmptyInputHasNoCountByte() {
        assertThrows(IllegalArgumentException.class, () -> OpsAndData.of(new byte[0]));
    }
}
