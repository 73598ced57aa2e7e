package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.oncrpc.AuthSysParms;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcCall;

/** What a credential becomes ({@link Squashing}, knfsd's {@code nfsd_setuser}), without a server. */
class SquashingTest {
    private static final ServerIdentity ROOT = new ServerIdentity(0, 0, true);
    /** A user namespace mapping ids 0..65535 only (a container). */
    private static final IdRanges SMALL = IdRanges.parse(List.of("0 100000 65536"));

    private static RpcCall call(int uid, int gid, Integer... groups) {
        return RpcCall.of(
                1, 100003, 3, 1, new AuthSysParms(1, "m", uid, gid, List.of(groups)).toOpaqueAuth(), OpaqueAuth.NONE);
    }

    @Test
    void rootSquashAllSquashAndInvalidIds() {
        Squashing s = new Squashing(IdRanges.ALL, IdRanges.ALL, ROOT);
        ExportOptions d = ExportOptions.DEFAULTS;
        Caller root = s.map(call(0, 0, 0, 10), d);
        assertEquals(65534, root.uid());
        assertEquals(65534, root.gid());
        assertArrayEquals(new int[] {65534, 10}, root.groups());
        assertTrue(root.sharedIdentity());

        Caller realRoot = s.map(call(0, 0, 0), d.withRootSquash(false));
        assertEquals(0, realRoot.uid());
        assertFalse(realRoot.sharedIdentity());

        Caller user = s.map(call(1000, 1000, 5), d.withAllSquash(true).withAnonymous(7, 8));
        assertEquals(7, user.uid());
        assertEquals(8, user.gid());
        assertEquals(0, user.groups().length);

        Caller minusOne = s.map(call(-1, -1, -1, 20), d.withRootSquash(false));
        assertEquals(65534, minusOne.uid(), "-1 is no id: anonymous, squashing or not");
        assertEquals(65534, minusOne.gid());
        assertArrayEquals(new int[] {20}, minusOne.groups(), "an invalid supplementary group is dropped");
        assertEquals(0755, minusOne.permittedMode(06755));

        Caller none = s.map(RpcCall.of(1, 100003, 3, 1, OpaqueAuth.NONE, OpaqueAuth.NONE), d.withRootSquash(false));
        assertEquals(65534, none.uid(), "AUTH_NONE is anonymous");
    }

    @Test
    void idsOutsideTheUserNamespaceAreAnonymous() {
        Squashing s = new Squashing(SMALL, SMALL, ROOT);
        Caller c = s.map(call(70000, 1000, 65535, 65536), ExportOptions.DEFAULTS);
        assertEquals(65534, c.uid());
        assertEquals(1000, c.gid());
        assertArrayEquals(new int[] {65535}, c.groups());
        assertFalse(IdRanges.ALL.isValid(-1));
        assertTrue(IdRanges.ALL.isValid(-2));
    }

    @Test
    void aServerThatCannotSwitchActsAsItselfForEveryone() {
        Squashing s = new Squashing(IdRanges.ALL, IdRanges.ALL, new ServerIdentity(1234, 1234, false));
        Caller c = s.map(call(1000, 1000, 5), ExportOptions.DEFAULTS);
        assertEquals(1234, c.uid());
        assertEquals(1234, c.gid());
        assertEquals(0, c.groups().length);
        assertTrue(c.sharedIdentity(), "its own identity is shared by every client: no set-id files");
        assertEquals(0644, c.permittedMode(04644));
    }

    @Test
    void exportOptionsParseAsExportsFiveNamesThem() {
        ExportOptions o = ExportOptions.DEFAULTS.with("ro,no_root_squash,insecure,async,anonuid=5,anongid=6");
        assertEquals(new ExportOptions(true, false, false, false, false, 5, 6), o);
        assertEquals(o, ExportOptions.DEFAULTS.with(o.toString()));
        assertThrows(IllegalArgumentException.class, () -> ExportOptions.DEFAULTS.with("rw,subtree_check"));
        assertThrows(IllegalArgumentException.class, () -> ExportOptions.DEFAULTS.with("anonuid=4294967295"));
    }
}
