package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
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
        assertEquals(
                Set.of(
                        "org.panamardma.verbs",
                        "org.panamardma.verbs.cm",
                        "org.panamardma.verbs.connection",
                        "org.panamardma.verbs.connection.agent",
                        "org.panamardma.verbs.extensions"),
                descriptor.exports().stream()
                        .filter(e -> !e.isQualified())
                        .map(ModuleDescriptor.Exports::source)
                        .collect(Collectors.toSet()));
        // Spans makes segments larger on this module's native access: for the RPC module's registration cache only
        // (issue 25 item 7; at 5c5f9a1 it was in org.panamardma.verbs, exported to every module)
        assertEquals(
                Set.of("org.panamardma.verbs.trusted -> [org.panamardma.rpcrdma]"),
                descriptor.exports().stream()
                        .filter(ModuleDescriptor.Exports::isQualified)
                        .map(e -> e.source() + " -> " + e.targets())
                        .collect(Collectors.toSet()));
        assertTrue(descriptor.opens().isEmpty(), "nothing is open for deep reflection");
        for (String hidden : new String[] {"org.panamardma.verbs.ffi", "org.panamardma.verbs.internal"}) {
            assertTrue(descriptor.packages().contains(hidden), hidden);
            assertFalse(module.isExported(hidden), hidden + " is exported");
        }
    }

    /**
     * The library jar holds no command-line code: the tool is the module org.panamardma.rdmatool (artifact rdma-tool).
     * Every class where the module's own classes come from (target/classes or the jar; the tests are patched in from
     * elsewhere) is checked for a static {@code main}.
     */
    @Test
    void containsNoCommandLineCode() throws Exception {
        Module module = Context.class.getModule();
        assumeTrue(module.isNamed(), "the tests run on the class path; the module checks need the module path");
        assertTrue(module.getDescriptor().mainClass().isEmpty(), "no main class in the descriptor");
        Path location = Path.of(Context.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        List<String> classes = new ArrayList<>();
        if (Files.isDirectory(location)) {
            try (Stream<Path> files = Files.walk(location)) {
                files.map(f -> location.relativize(f).toString()).forEach(classes::add);
            }
        } else {
            try (JarFile jar = new JarFile(location.toFile())) {
                jar.stream().map(JarEntry::getName).forEach(classes::add);
            }
        }
        classes.removeIf(n -> !n.endsWith(".class") || n.endsWith("module-info.class"));
        classes.replaceAll(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'));
        assertTrue(
                classes.contains(Context.class.getName()) && classes.size() > 50,
                "the module's classes were listed from " + location + ": " + classes.size());
        List<String> mains = new ArrayList<>();
        for (String name : classes) {
            for (Method m : Class.forName(name, false, module.getClassLoader()).getDeclaredMethods()) {
                if (m.getName().equals("main") && Modifier.isStatic(m.getModifiers())) {
                    mains.add(name);
                }
            }
        }
        assertEquals(List.of(), mains, "classes of " + location + " with a static main");
    }

    @Test
    void nativeAccessIsGrantedToTheModuleByName() {
        Module module = Context.class.getModule();
        assumeTrue(module.isNamed(), "the tests run on the class path; the module checks need the module path");
        assertTrue(module.isNativeAccessEnabled(), "the tests run with --enable-native-access=org.panamardma.verbs");
    }
}
