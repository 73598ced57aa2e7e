package org.panamardma.verbs.connection.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The agent's messages byte for byte (RFC 7306 Figures 4, 6, 7; RFC 5040 section 4.8), and every refusal. */
class AgentWireTest {
    private static byte[] hex(String s) {
        return HexFormat.of().parseHex(s.replace(" ", ""));
    }

    private static MemorySegment of(byte[] b) {
        return MemorySegment.ofArray(b);
    }

    @Test
    void atomicRequestIsFigure4BigEndianAfterTheControlWord() throws Exception {
        byte[] buf = new byte[56];
        AtomicRequest r = AtomicRequest.compareSwap(
                0x01020304L,
                0x0a0b0c0d,
                0x1122334455667788L,
                0x2222222222222222L,
                0x00000000ffffffffL,
                0x3333333333333333L,
                0xffffffff00000000L);
        assertEquals(56, AgentWire.encodeRequest(of(buf), 0, r));
        assertArrayEquals(
                hex(
                        "4a 00 00 00" // RV 01b, opcode 1010b; flags; reserved
                                + " 00000002" // Reserved (28 bits) | AOpCode 0010b: CmpSwap
                                + " 01020304" // Request Identifier
                                + " 0a0b0c0d" // Remote STag
                                + " 1122334455667788" // Remote Tagged Offset
                                + " 3333333333333333" // Add or Swap Data
                                + " ffffffff00000000" // Add or Swap Mask
                                + " 2222222222222222" // Compare Data
                                + " 00000000ffffffff"),
                buf); // Compare Mask
        AgentWire.Request decoded = assertInstanceOf(AgentWire.Request.class, AgentWire.decode(of(buf)));
        assertEquals(r, decoded.request());
    }

    @Test
    void fetchAddCarriesItsMaskAndTheComparesSection521Prescribes() throws Exception {
        byte[] buf = new byte[56];
        AgentWire.encodeRequest(of(buf), 0, AtomicRequest.fetchAdd(7, 1, 8, 5, 0x8000000080000000L));
        assertEquals("00000000", HexFormat.of().formatHex(buf, 4, 8)); // AOpCode 0000b FetchAdd
        assertEquals("8000000080000000", HexFormat.of().formatHex(buf, 32, 40)); // Add Mask
        assertEquals("0000000000000000", HexFormat.of().formatHex(buf, 40, 48)); // Compare Data: zero
        assertEquals("ffffffffffffffff", HexFormat.of().formatHex(buf, 48, 56)); // Compare Mask: all ones
    }

    @Test
    void reservedBitsOfTheFirstWordAreIgnoredOnReceive() throws Exception {
        byte[] buf = new byte[56];
        AgentWire.encodeRawRequest(of(buf), 0, 0xfffffff0, 9, 1, 8, 1, 0, 0, -1);
        AgentWire.Request r = assertInstanceOf(AgentWire.Request.class, AgentWire.decode(of(buf)));
        assertEquals(AtomicRequest.Operation.FETCH_ADD, r.request().operation());
        assertEquals(9, r.request().requestId());
    }

    /**
     * RFC 5040 section 4.3: the Rsv bits of the RDMAP Control Field are set to zero on transmit and not checked on
     * receive (the fuzz target's first finding, crash-7352ab74..., was its own stricter expectation).
     */
    @Test
    void theControlFieldsRsvBitsAreNotChecked() throws Exception {
        byte[] buf = new byte[56];
        AgentWire.encodeRequest(of(buf), 0, AtomicRequest.fetchAdd(3, 1, 8, 1, 0));
        buf[0] |= 0x30;
        assertEquals(
                AtomicRequest.fetchAdd(3, 1, 8, 1, 0),
                assertInstanceOf(AgentWire.Request.class, AgentWire.decode(of(buf)))
                        .request());
    }

    @Test
    void responseIsFigure6() throws Exception {
        byte[] buf = new byte[16];
        assertEquals(16, AgentWire.encodeResponse(of(buf), 0, 0xfffffffeL, 0x8877665544332211L));
        assertArrayEquals(hex("4b000000 fffffffe 8877665544332211"), buf);
        AgentWire.AtomicResponse a = assertInstanceOf(AgentWire.AtomicResponse.class, AgentWire.decode(of(buf)));
        assertEquals(0xfffffffeL, a.requestId());
        assertEquals(0x8877665544332211L, a.originalValue());
    }

    @Test
    void immediateDataIsFigure7AndASendCarriesItBeforeItsPayload() throws Exception {
        byte[] buf = new byte[12];
        assertEquals(12, AgentWire.encodeImmediateData(of(buf), 0, 0xcafef00d));
        assertArrayEquals(hex("48000000 00000000cafef00d"), buf);
        assertEquals(new AgentWire.ImmediateData(0xcafef00dL), AgentWire.decode(of(buf)));

        byte[] send = new byte[12 + 3];
        assertEquals(12, AgentWire.encodeSendHeader(of(send), 0, true, -1));
        assertEquals(new AgentWire.Send(12, true, 0xffffffffL), AgentWire.decode(of(send)));
        byte[] plain = new byte[4 + 100];
        assertEquals(4, AgentWire.encodeSendHeader(of(plain), 0, false, 0));
        assertArrayEquals(hex("43000000"), java.util.Arrays.copyOf(plain, 4));
        assertEquals(new AgentWire.Send(4, false, 0), AgentWire.decode(of(plain)));
        // an empty Send is a Send
        assertEquals(new AgentWire.Send(4, false, 0), AgentWire.decode(of(hex("43000000"))));
        // Immediate Data with Solicited Event is taken as Immediate Data
        buf[0] = 0x49;
        assertEquals(new AgentWire.ImmediateData(0xcafef00dL), AgentWire.decode(of(buf)));
    }

    @Test
    void terminateIsRfc5040TerminateControlAndTheRequestIdentifier() throws Exception {
        byte[] buf = new byte[12];
        assertEquals(12, AgentWire.encodeTerminate(of(buf), 0, TerminateError.BASE_OR_BOUNDS, 42));
        // Layer 0 RDMAP | EType 1 Remote Protection | Code 0x01 Base or bounds | A bit
        assertArrayEquals(hex("47000000 01012000 0000002a"), buf);
        assertEquals(new AgentWire.Terminate(TerminateError.BASE_OR_BOUNDS, 42), AgentWire.decode(of(buf)));
        AgentWire.encodeTerminate(of(buf), 0, TerminateError.NO_BUFFER, -1);
        // Layer 1 DDP | EType 2 Untagged Buffer | Code 0x02 no buffer; no header included
        assertArrayEquals(hex("47000000 12020000 00000000"), buf);
        assertEquals(new AgentWire.Terminate(TerminateError.NO_BUFFER, -1), AgentWire.decode(of(buf)));
        // a Terminate Control the agent does not know is still a Terminate
        byte[] odd = hex("47000000 2f7f0000 00000000");
        assertEquals(new AgentWire.Terminate(TerminateError.UNSPECIFIED, -1), AgentWire.decode(of(odd)));
    }

    @Test
    void everyTerminateErrorRoundTrips() throws Exception {
        byte[] buf = new byte[12];
        for (TerminateError e : TerminateError.values()) {
            AgentWire.encodeTerminate(of(buf), 0, e, 3);
            assertEquals(new AgentWire.Terminate(e, 3), AgentWire.decode(of(buf)), e.name());
        }
    }

    private static TerminateError refusal(String hexMessage) {
        return assertThrows(AgentProtocolException.class, () -> AgentWire.decode(of(hex(hexMessage))))
                .error();
    }

    @Test
    void malformedMessagesAreRefusedWithTheRfcsErrors() {
        assertEquals(TerminateError.CATASTROPHIC_STREAM, refusal(""));
        assertEquals(TerminateError.CATASTROPHIC_STREAM, refusal("430000"));
        assertEquals(TerminateError.INVALID_VERSION, refusal("03000000")); // RV 00b
        assertEquals(TerminateError.INVALID_VERSION, refusal("83000000")); // RV 10b
        assertEquals(TerminateError.UNEXPECTED_OPCODE, refusal("40000000")); // RDMA Write is never a SEND
        assertEquals(TerminateError.UNEXPECTED_OPCODE, refusal("4c000000"));
        // a Send flagged with immediate data too short for it
        assertEquals(TerminateError.CATASTROPHIC_STREAM, refusal("43010000 00000000 000000"));
        // RFC 7306 section 6.3: exactly 8 bytes of Immediate Data
        assertEquals(TerminateError.CATASTROPHIC_STREAM, refusal("48000000 00000000 000000"));
        assertEquals(TerminateError.CATASTROPHIC_STREAM, refusal("48000000 00000000 00000000 00"));
        assertEquals(TerminateError.CATASTROPHIC_STREAM, refusal("4b000000 00000001"));
        assertEquals(TerminateError.CATASTROPHIC_STREAM, refusal("47000000 00000000"));
        byte[] request = new byte[56];
        AgentWire.encodeRequest(of(request), 0, AtomicRequest.fetchAdd(1, 1, 8, 1, 0));
        assertEquals(
                TerminateError.CATASTROPHIC_STREAM,
                assertThrows(
                                AgentProtocolException.class,
                                () -> AgentWire.decode(of(java.util.Arrays.copyOf(request, 55))))
                        .error());
        assertEquals(
                TerminateError.CATASTROPHIC_STREAM,
                assertThrows(
                                AgentProtocolException.class,
                                () -> AgentWire.decode(of(java.util.Arrays.copyOf(request, 57))))
                        .error());
    }

    @Test
    void anAtomicOperationCodeRfc7306DoesNotDefineIsAnUnexpectedOpcodeNamingTheRequest() {
        for (int code : new int[] {0x1, 0x3, 0xf}) {
            byte[] buf = new byte[56];
            AgentWire.encodeRawRequest(of(buf), 0, code, 77, 1, 8, 0, 0, 0, 0);
            AgentProtocolException e = assertThrows(AgentProtocolException.class, () -> AgentWire.decode(of(buf)));
            assertEquals(TerminateError.UNEXPECTED_OPCODE, e.error());
            assertEquals(77, e.requestId());
        }
    }
}
