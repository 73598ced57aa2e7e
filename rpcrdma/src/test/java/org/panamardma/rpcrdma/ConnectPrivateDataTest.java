package org.panamardma.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ConnectPrivateDataTest {
    /**
     * Golden vector, built by hand from RFC 8797 section 7 and Linux include/linux/sunrpc/rpc_rdma.h
     * (rpcrdma_cmp_magic 0xf6ab0e18 in network order, version 1, RPCRDMA_CMP_F_SND_W_INV_OK = BIT(0),
     * rpcrdma_encode_buffer_size(size) = (size >> 10) - 1): send 4 KiB -> 3, receive 64 KiB -> 63.
     */
    private static final byte[] GOLDEN = {(byte) 0xf6, (byte) 0xab, 0x0e, 0x18, 0x01, 0x01, 0x03, 0x3f};

    @Test
    void encodesTheRfc8797Layout() {
        assertArrayEquals(GOLDEN, ConnectPrivateData.of(4096, 65536, true).encode());
    }

    @Test
    void decodesTheGoldenVector() {
        ConnectPrivateData d = ConnectPrivateData.decode(GOLDEN);
        assertEquals(4096, d.sendSize());
        assertEquals(65536, d.receiveSize());
        assertTrue(d.remoteInvalidation());
        assertTrue(d.present());
    }

    @Test
    void sizeEncodingCoversTheWholeByte() {
        assertEquals(0, ConnectPrivateData.encodeSize(1024));
        assertEquals((byte) 0xff, ConnectPrivateData.encodeSize(256 * 1024));
        assertEquals(1024, ConnectPrivateData.decodeSize((byte) 0));
        assertEquals(256 * 1024, ConnectPrivateData.decodeSize((byte) 0xff));
        for (int b = 0; b < 256; b++) {
            assertEquals((byte) b, ConnectPrivateData.encodeSize(ConnectPrivateData.decodeSize((byte) b)));
        }
    }

    @Test
    void ofRoundsDownAndClampsAndRefusesBelowTheMinimum() {
        ConnectPrivateData d = ConnectPrivateData.of(4097, 1 << 20, false);
        assertEquals(4096, d.sendSize());
        assertEquals(256 * 1024, d.receiveSize());
        assertEquals(0, d.encode()[5]);
        assertThrows(IllegalArgumentException.class, () -> ConnectPrivateData.of(1023, 1024, false));
        assertThrows(IllegalArgumentException.class, () -> new ConnectPrivateData(1500, 1024, false, true));
    }

    @Test
    void absentShortForeignOrOtherVersionMeansDefaults() {
        assertSame(ConnectPrivateData.DEFAULTS, ConnectPrivateData.decode((byte[]) null));
        assertSame(ConnectPrivateData.DEFAULTS, ConnectPrivateData.decode(new byte[0]));
        assertSame(ConnectPrivateData.DEFAULTS, ConnectPrivateData.decode(Arrays.copyOf(GOLDEN, 7)));
        byte[] foreign = GOLDEN.clone();
        foreign[3] = 0x19;
        assertSame(ConnectPrivateData.DEFAULTS, ConnectPrivateData.decode(foreign));
        byte[] littleEndianMagic = {0x18, 0x0e, (byte) 0xab, (byte) 0xf6, 1, 0, 3, 3};
        assertSame(ConnectPrivateData.DEFAULTS, ConnectPrivateData.decode(littleEndianMagic));
        byte[] version2 = GOLDEN.clone();
        version2[4] = 2;
        assertSame(ConnectPrivateData.DEFAULTS, ConnectPrivateData.decode(version2));
        assertEquals(1024, ConnectPrivateData.DEFAULTS.sendSize());
        assertEquals(1024, ConnectPrivateData.DEFAULTS.receiveSize());
        assertFalse(ConnectPrivateData.DEFAULTS.present());
    }

    @Test
    void trailingPaddingAndUnknownFlagsAreIgnored() {
        byte[] padded = Arrays.copyOf(GOLDEN, 56); // IB CM pads REQ private data to 56 bytes
        padded[5] = (byte) 0xfe; // unknown flag bits, bit 0 clear
        ConnectPrivateData d = ConnectPrivateData.decode(padded);
        assertTrue(d.present());
        assertFalse(d.remoteInvalidation());
        assertEquals(4096, d.sendSize());
    }

    @Test
    void thresholdsAreTheMinimumOfBothSides() {
        ConnectPrivateData ours = ConnectPrivateData.of(4096, 8192, false);
        ConnectPrivateData peers = ConnectPrivateData.of(16384, 2048, false);
        assertEquals(2048, ConnectPrivateData.sendThreshold(ours, peers));
        assertEquals(8192, ConnectPrivateData.receiveThreshold(ours, peers));
        assertEquals(1024, ConnectPrivateData.sendThreshold(ours, ConnectPrivateData.DEFAULTS));
        assertEquals(1024, ConnectPrivateData.receiveThreshold(ours, ConnectPrivateData.DEFAULTS));
    }
}
