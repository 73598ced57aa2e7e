package org.panamardma.oncrpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.panamardma.testing.Bytes.words;

import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.xdr.XdrException;

class AuthSysParmsTest {
    @Test
    void limitsOfRfc5531AreEnforcedOnConstruction() {
        String name255 = "n".repeat(255);
        List<Integer> gids16 = Collections.nCopies(16, 7);
        AuthSysParms max = new AuthSysParms(1, name255, 0, 0, gids16);
        assertEquals(max, AuthSysParms.from(max.toOpaqueAuth()));
        assertEquals(4 + 4 + 256 + 4 + 4 + 4 + 64, max.toOpaqueAuth().body().length);
        assertThrows(IllegalArgumentException.class, () -> new AuthSysParms(1, name255 + "n", 0, 0, List.of()));
        assertThrows(IllegalArgumentException.class, () -> new AuthSysParms(1, "h", 0, 0, Collections.nCopies(17, 1)));
        // 128 two-byte characters are 256 bytes: the limit counts bytes
        assertThrows(IllegalArgumentException.class, () -> new AuthSysParms(1, "\u00e9".repeat(128), 0, 0, List.of()));
    }

    @Test
    void decodingEnforcesTheLimitsToo() {
        // machinename length 256
        XdrException name = assertThrows(
                XdrException.class, () -> AuthSysParms.from(new OpaqueAuth(AuthFlavor.AUTH_SYS, words(0, 256))));
        assertEquals(XdrException.Reason.LIMIT_EXCEEDED, name.reason());
        assertEquals(4, name.offset());
        // 17 gids
        XdrException gids = assertThrows(
                XdrException.class,
                () -> AuthSysParms.from(new OpaqueAuth(AuthFlavor.AUTH_SYS, words(0, 0, 0, 0, 17))));
        assertEquals(XdrException.Reason.LIMIT_EXCEEDED, gids.reason());
        assertEquals(16, gids.offset());
    }

    @Test
    void bodyMustHoldExactlyTheParameters() {
        XdrException trailing = assertThrows(
                XdrException.class,
                () -> AuthSysParms.from(new OpaqueAuth(AuthFlavor.AUTH_SYS, words(0, 0, 0, 0, 0, 99))));
        assertEquals(XdrException.Reason.INVALID_VALUE, trailing.reason());
        assertEquals(20, trailing.offset());
        assertThrows(XdrException.class, () -> AuthSysParms.from(OpaqueAuth.NONE));
    }

    @Test
    void uidsAreUnsigned() {
        AuthSysParms nobody = new AuthSysParms(0, "", -2, -2, List.of(-1));
        AuthSysParms decoded = AuthSysParms.from(nobody.toOpaqueAuth());
        assertEquals(4294967294L, Integer.toUnsignedLong(decoded.uid()));
        assertEquals(nobody, decoded);
    }

    @Test
    void opaqueAuthComparesBodiesByContentAndIsImmutable() {
        byte[] body = {1, 2};
        OpaqueAuth auth = new OpaqueAuth(1, body);
        body[0] = 9;
        assertEquals(new OpaqueAuth(1, new byte[] {1, 2}), auth);
        auth.body()[1] = 9;
        assertEquals(new OpaqueAuth(1, new byte[] {1, 2}).hashCode(), auth.hashCode());
        assertNotEquals(new OpaqueAuth(2, new byte[] {1, 2}), auth);
    }
}
