package org.panamardma.oncrpc.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.limits.ConnectionAdmission.Refusal;
import org.panamardma.oncrpc.limits.ConnectionAdmission.Refused;
import org.panamardma.oncrpc.limits.ConnectionAdmission.Ticket;

class ConnectionAdmissionTest {
    private static InetAddress address(int last) throws Exception {
        return InetAddress.getByAddress(new byte[] {10, 77, 0, (byte) last});
    }

    @Test
    void oneAddressCannotTakeEverySlot() throws Exception {
        ConnectionAdmission admission = new ConnectionAdmission(4, 2);
        List<Ticket> a = new ArrayList<>();
        a.add(assertInstanceOf(Ticket.class, admission.admit(address(1))));
        a.add(assertInstanceOf(Ticket.class, admission.admit(address(1))));
        Refused third = assertInstanceOf(Refused.class, admission.admit(address(1)));
        assertEquals(Refusal.ADDRESS_FULL, third.reason());
        assertEquals(2, third.limit());
        Ticket b1 = assertInstanceOf(Ticket.class, admission.admit(address(2)), "another host still gets in");
        Ticket b2 = assertInstanceOf(Ticket.class, admission.admit(address(2)));
        assertEquals(
                Refusal.SERVER_FULL,
                assertInstanceOf(Refused.class, admission.admit(address(3))).reason());
        assertEquals(4, admission.open());
        assertEquals(1, admission.refused(Refusal.ADDRESS_FULL));
        assertEquals(1, admission.refused(Refusal.SERVER_FULL));
        a.get(0).close();
        a.get(0).close(); // twice is harmless
        assertEquals(1, admission.openFrom(address(1)));
        assertInstanceOf(Ticket.class, admission.admit(address(1)), "a place given back is a place to take");
        b1.close();
        b2.close();
        assertEquals(0, admission.openFrom(address(2)));
        assertEquals(2, admission.open());
        assertEquals(5, admission.admitted());
    }

    @Test
    void anUnknownAddressMeetsOnlyTheTotalCap() {
        ConnectionAdmission admission = new ConnectionAdmission(2, 1);
        assertInstanceOf(Ticket.class, admission.admit(null));
        assertInstanceOf(Ticket.class, admission.admit(null));
        assertEquals(
                Refusal.SERVER_FULL,
                assertInstanceOf(Refused.class, admission.admit(null)).reason());
    }

    @Test
    void capsMustAdmitSomeone() {
        assertThrows(IllegalArgumentException.class, () -> new ConnectionAdmission(0, 1));
        assertThrows(IllegalArgumentException.class, () -> new ConnectionAdmission(1, 0));
    }
}
