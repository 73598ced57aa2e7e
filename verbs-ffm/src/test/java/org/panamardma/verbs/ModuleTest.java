package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.module.ModuleDescriptor;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The module org.panamardma.verbs as the tests see it: surefire runs them on the module path (the test classes
 * patched into the module), so this checks the descriptor that users get and that native access is granted by name.
 */
class ModuleTest {
    @Test
    void exportsTheApiAndNotTheBindings() {
        Module module = Context.class.getModule();
        assumeTrue(module.isNamed(), "the tests run on the class path; the module checks need the module path");
        assertEquals("org.panamardma.verbs", module.getName());
        ModuleDescriptor descriptor = module.getDescriptor();
        assertEquals(Set.of("org.panamardma.verbs", "org.panamardma.verbs.cm", "org.panamardma.verbs.connection",
                        "org.panamardma.verbs.extensions"),
                descriptor.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet()));
        assertTrue(descriptor.exports().stream().noneMatch(ModuleDescriptor.Exports::isQualified));
        assertTrue(descriptor.opens().isEmpty(), "nothing is open for deep reflection");
        for (String hidden : new String[] {"org.panamardma.verbs.ffi", "org.panamardma.verbs.internal",
                "org.panamardma.verbs.tools"}) {
            assertTrue(descriptor.packages().contains(hidden), hidden);
            assertFalse(module.isExported(hidden), hidden + " is exported");
        }
    }

    @Test
    void nativeAccessIsGrantedToTheModuleByName() {
        Module module = Context.class.getModule();
        assumeTrue(module.isNamed(), "the tests run on the class path; the module checks need the module path");
        assertTrue(module.isNativeAccessEnabled(), "the tests run with --enable-native-access=org.panamardma.verbs");
    }
}
