package org.panamardma.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** The wire format: what is written is read back; every malformed frame a peer could send is named, not used. */
class FrameTest {
    private final MemorySegment slot = Arena.ofAuto().allocate(64);

    @Test
    void headersRoundTrip() {
        Frame.writeHeader(slot, 0, Frame.DATA, 65535, 1000);
        assertEquals(Frame.DATA, Frame.type(slot, 0));
        assertEquals(65535, Frame.credits(slot, 0));
        assertEquals(1000, Frame.length(slot, 0));
        assertNull(Frame.check(slot, 0, 1008, 1 << 20));
        Frame.writeHeader(slot, 0, Frame.CTS, 3, 1 << 20);
        Frame.writeGrant(slot, 0, 0x7f00_1234_5678L, 0xabcdef01);
        assertEquals(0x7f00_1234_5678L, Frame.grantAddress(slot, 0));
        assertEquals(0xabcdef01, Frame.grantRkey(slot, 0));
        assertNull(Frame.check(slot, 0, Frame.CTS_LENGTH, 1 << 20));
    }

    @Test
    void malformedFramesAreNamed() {
        assertNotNull(Frame.check(slot, 0, 7, 100), "shorter than a header");
        Frame.writeHeader(slot, 0, Frame.DATA, 0, 10);
        assertNotNull(Frame.check(slot, 0, 8 + 11, 100), "DATA whose length disagrees with the SEND");
        Frame.writeHeader(slot, 0, Frame.DATA, 0, 0);
        assertNotNull(Frame.check(slot, 0, 8, 100), "empty DATA");
        Frame.writeHeader(slot, 0, Frame.RTS, 0, 101);
        assertNotNull(Frame.check(slot, 0, 8, 100), "RTS beyond the transfer this side offered");
        Frame.writeHeader(slot, 0, Frame.RTS, 0, -1);
        assertNotNull(Frame.check(slot, 0, 8, 100), "RTS of a negative (over 2 GiB) length");
        Frame.writeHeader(slot, 0, Frame.CREDIT, 0, 5);
        assertNotNull(Frame.check(slot, 0, 8, 100), "CREDIT with a length");
        Frame.writeHeader(slot, 0, (byte) 42, 0, 0);
        assertNotNull(Frame.check(slot, 0, 8, 100), "unknown type");
        Frame.writeHeader(slot, 0, Frame.CTS, 0, 10);
        assertNotNull(Frame.check(slot, 0, 8, 100), "CTS without its grant");
        Frame.writeHeader(slot, 0, Frame.FIN, 0, 0);
        slot.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 1, (byte) 1);
        assertNotNull(Frame.check(slot, 0, 8, 100), "reserved byte set");
    }

    @Test
    void privateDataRoundTripsAndForeignPeersAreRefused() {
        ConnectPrivateData p = new ConnectPrivateData(32, 16384, 1 << 20, 0, 0L); // no stream start word
        assertEquals(p, ConnectPrivateData.decode(p.encode()));
        byte[] longer = java.util.Arrays.copyOf(p.encode(), 56); // padded by the transport
        assertEquals(p, ConnectPrivateData.decode(longer));
        assertThrows(IllegalArgumentException.class, () -> ConnectPrivateData.decode(new byte[0]));
        byte[] other = p.encode();
        other[0] = 0;
        assertThrows(IllegalArgumentException.class, () -> ConnectPrivateData.decode(other));
        byte[] version = p.encode();
        version[4] = 9;
        assertThrows(IllegalArgumentException.class, () -> ConnectPrivateData.decode(version));
        byte[] depth = p.encode();
        depth[6] = 0;
        depth[7] = 1; // a receive depth of 1: too few for the credit rules
        assertThrows(IllegalArgumentException.class, () -> ConnectPrivateData.decode(depth));
        ConnectPrivateData word = new ConnectPrivateData(32, 16384, 1 << 20, 0x1234abcd, 0x7f00_1234_5000L);
        assertEquals(word, ConnectPrivateData.decode(word.encode()), "the stream start word's key and address");
        byte[] v1 = java.util.Arrays.copyOf(word.encode(), 16);
        v1[4] = 1;
        IllegalArgumentException old =
                assertThrows(IllegalArgumentException.class, () -> ConnectPrivateData.decode(v1));
        assertTrue(
                old.getMessage().contains("version 1"),
                "a version 1 peer (16 bytes, no stream start word) is named: " + old.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> ConnectPrivateData.decode(java.util.Arrays.copyOf(word.encode(), 20)),
                "version 2 cut short");
    }
}
