package org.panamardma.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TransferDeadlineTest {
    @Test
    void aBasePlusASecondPerMebibyte() {
        TransferDeadline d = new TransferDeadline(Duration.ofSeconds(5));
        assertEquals(5_000, d.millisFor(0));
        assertEquals(5_000 + 62, d.millisFor(64 << 10));
        assertEquals(5_000 + 16_000, d.millisFor(16 << 20), "16 MiB: 21 s, below the 30 s of the old timeout");
        assertThrows(IllegalArgumentException.class, () -> new TransferDeadline(Duration.ZERO));
    }
}
