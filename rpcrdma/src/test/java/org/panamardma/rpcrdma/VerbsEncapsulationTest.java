package org.panamardma.rpcrdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.Context;

/**
 * What another module sees of org.panamardma.verbs on the module path (surefire runs these tests patched into
 * org.panamardma.rpcrdma): the raw bindings and the internal access to the verbs objects' native handles are not
 * exported, so neither a call nor deep reflection reaches them.
 */
class VerbsEncapsulationTest {
    @Test
    void ffiAndInternalAreOutOfReach() throws Exception {
        Module self = getClass().getModule();
        assumeTrue(self.isNamed(), "the tests run on the class path; the module checks need the module path");
        assertEquals("org.panamardma.rpcrdma", self.getName());
        Module verbs = Context.class.getModule();
        assertEquals("org.panamardma.verbs", verbs.getName());
        assertTrue(self.canRead(verbs));

        for (String hidden : new String[] {"org.panamardma.verbs.ffi", "org.panamardma.verbs.internal"}) {
            assertFalse(verbs.isExported(hidden, self), hidden + " is exported to " + self.getName());
            assertFalse(verbs.isOpen(hidden, self), hidden + " is open to " + self.getName());
        }

        // VerbsAccess.get() would hand out the native handles of every verbs object
        ClassLoader loader = Context.class.getClassLoader();
        Method get = Class.forName("org.panamardma.verbs.internal.VerbsAccess", false, loader)
                .getMethod("get");
        assertThrows(IllegalAccessException.class, () -> get.invoke(null));
        assertThrows(InaccessibleObjectException.class, () -> get.setAccessible(true));
        // the bindings: downcall handles, struct layouts, native pointers
        Method lib =
                Class.forName("org.panamardma.verbs.ffi.Native", false, loader).getDeclaredMethods()[0];
        assertThrows(InaccessibleObjectException.class, () -> lib.setAccessible(true));
    }

    @Test
    void exportsEveryPackageAsApi() {
        Module self = getClass().getModule();
        assumeTrue(self.isNamed(), "the tests run on the class path; the module checks need the module path");
        for (String api :
                new String[] {"org.panamardma.rpcrdma", "org.panamardma.rpcrdma.client", "org.panamardma.rpcrdma.server"
                }) {
            assertTrue(self.isExported(api), api);
        }
        // XDR and ONC RPC are org.panamardma.oncrpc's, read transitively so that users of this module see them
        for (String transitive : new String[] {"org.panamardma.verbs", "org.panamardma.oncrpc"}) {
            assertTrue(
                    self.getDescriptor().requires().stream()
                            .anyMatch(r -> r.name().equals(transitive)
                                    && r.modifiers()
                                            .contains(java.lang.module.ModuleDescriptor.Requires.Modifier.TRANSITIVE)),
                    "requires transitive " + transitive);
        }
        Module oncrpc = org.panamardma.xdr.XdrDecoder.class.getModule();
        assertEquals("org.panamardma.oncrpc", oncrpc.getName());
        for (String api : new String[] {
            "org.panamardma.xdr", "org.panamardma.oncrpc", "org.panamardma.oncrpc.tcp", "org.panamardma.oncrpc.limits"
        }) {
            assertTrue(oncrpc.isExported(api), api);
        }
    }
}
