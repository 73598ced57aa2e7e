package org.panamardma.verbs.connection.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.cm.PrivateDataLimits;

/** The agent's private-data trailer: after the application's data, found again on iWARP and InfiniBand alike. */
class HandshakeTest {
    /** RFC 8797's private data as RPC-over-RDMA sends it, which must stay at the front. */
    static final byte[] RFC_8797 = HexFormat.of().parseHex("f6ab0e18010000ff");

    @Test
    void theTrailerFollowsTheApplicationsDataAndComesBackApart() {
        byte[] sent = Handshake.append(RFC_8797, 16, 8);
        assertEquals(
                "f6ab0e18010000ff" + "01" + "10" + "08" + "00" + "37333036",
                HexFormat.of().formatHex(sent));
        Handshake.Parsed p = Handshake.parse(sent);
        assertArrayEquals(RFC_8797, p.applicationData());
        assertEquals(new Handshake.Offer(1, 16, 8), p.offer());
    }

    @Test
    void infinibandsZeroPaddingToTheFieldSizeIsLookedThrough() {
        for (int field : new int[] {PrivateDataLimits.IB_CONNECT, PrivateDataLimits.IB_ACCEPT}) {
            byte[] received = Arrays.copyOf(Handshake.append(new byte[] {1, 0, 0}, 4, 4), field);
            Handshake.Parsed p = Handshake.parse(received);
            assertArrayEquals(new byte[] {1, 0, 0}, p.applicationData(), "the application's own zeros stay");
            assertEquals(new Handshake.Offer(1, 4, 4), p.offer());
        }
        Handshake.Parsed none = Handshake.parse(Arrays.copyOf(Handshake.append(new byte[0], 2, 3), 56));
        assertEquals(0, none.applicationData().length);
        assertEquals(new Handshake.Offer(1, 2, 3), none.offer());
    }

    @Test
    void privateDataWithoutATrailerIsTheApplicationsAlone() {
        for (byte[] data :
                new byte[][] {new byte[0], new byte[56], RFC_8797, "7306".getBytes(), Arrays.copyOf(RFC_8797, 196)}) {
            Handshake.Parsed p = Handshake.parse(data);
            assertNull(p.offer());
            assertArrayEquals(data, p.applicationData());
        }
    }

    @Test
    void aTrailerOfAnotherVersionOrWithoutDepthIsNoOffer() {
        byte[] other = Handshake.append(RFC_8797, 4, 4);
        other[8] = 2;
        assertNull(Handshake.parse(other).offer());
        assertArrayEquals(RFC_8797, Handshake.parse(other).applicationData());
        byte[] zero = Handshake.append(RFC_8797, 4, 4);
        zero[9] = 0;
        assertNull(Handshake.parse(zero).offer());
    }

    @Test
    void eachSideSendsNoMoreThanThePeerExecutes() {
        assertEquals(new Handshake.Negotiated(16, 4), Handshake.negotiate(16, new Handshake.Offer(1, 4, 64)));
        assertEquals(new Handshake.Negotiated(4, 4), Handshake.negotiate(4, new Handshake.Offer(1, 64, 64)));
        assertNull(Handshake.negotiate(16, null));
    }

    @Test
    void depthsOutsideAByteAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Handshake.append(new byte[0], 0, 1));
        assertThrows(IllegalArgumentException.class, () -> Handshake.append(new byte[0], 1, 256));
    }
}
