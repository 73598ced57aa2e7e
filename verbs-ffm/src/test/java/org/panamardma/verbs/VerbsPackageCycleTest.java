package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.ClassEntry;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.classfile.constantpool.Utf8Entry;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The packages of verbs-ffm form layers, not rings (docs/architecture.md, "The dependency rule"; issue 27): read from
 * the compiled classes as jdeps does (every class a class file names: constant pool class entries, and the types in
 * its descriptors and generic signatures), the package graph has no cycle. The cm package sits above verbs and its
 * internal bridge and nothing below names it: VerbsAccessHolder used to (its list of the classes that may use the
 * bridge held CmId.class), which made verbs, verbs.internal and verbs.cm one cycle.
 *
 * <p>No cycle is allowed, not even a small one. The last one, verbs and verbs.internal (issue 27), is gone: the
 * SharedSecrets-style bridge by which cm reaches the verbs objects' handles ({@code VerbsAccess}) takes the verbs
 * types as type parameters, which {@code cm.CmVerbs} names, and the non-blocking fd wait ({@code ReadableFd}) throws
 * the exception its owner's {@code Failure} makes instead of {@code RdmaException}; internal now sits below verbs.
 * On the code before that change this test failed with the cycle [verbs, verbs.internal].
 */
class VerbsPackageCycleTest {
    private static final Path CLASSES = Path.of("target/classes");
    private static final String ROOT = "org/panamardma/verbs";
    private static final Pattern TYPE_IN_DESCRIPTOR = Pattern.compile("L(" + ROOT + "[\\w/$]*);");

    /** Package -> package it depends on -> the classes of the first that name the second. */
    private static Map<String, Map<String, Set<String>>> packageGraph() throws IOException {
        Map<String, Map<String, Set<String>>> graph = new TreeMap<>();
        // a file visitor, not a stream of Files.walk: VerbMap reads a test with try-with-resources that names an API
        // type as exercising that type's close() (this test exercises no verb)
        Files.walkFileTree(CLASSES.resolve(ROOT), new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path f, BasicFileAttributes attrs) throws IOException {
                if (!f.toString().endsWith(".class")) {
                    return FileVisitResult.CONTINUE;
                }
                ClassModel model = ClassFile.of().parse(f);
                String self = model.thisClass().asInternalName();
                String from = packageOf(self);
                for (String used : referencedClasses(model)) {
                    String to = packageOf(used);
                    if (to.startsWith(ROOT) && !to.equals(from)) {
                        graph.computeIfAbsent(from, k -> new TreeMap<>())
                                .computeIfAbsent(to, k -> new TreeSet<>())
                                .add(self);
                    }
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return graph;
    }

    private static Set<String> referencedClasses(ClassModel model) {
        Set<String> names = new TreeSet<>();
        for (PoolEntry e : model.constantPool()) {
            if (e instanceof ClassEntry c) {
                String n = c.asInternalName();
                names.add(n.startsWith("[") ? n.replaceAll("^\\[+L?|;$", "") : n);
            } else if (e instanceof Utf8Entry u) {
                Matcher m = TYPE_IN_DESCRIPTOR.matcher(u.stringValue());
                while (m.find()) {
                    names.add(m.group(1));
                }
            }
        }
        return names;
    }

    private static String packageOf(String internalName) {
        int slash = internalName.lastIndexOf('/');
        return slash < 0 ? "" : internalName.substring(0, slash);
    }

    /** The strongly connected components of more than one node (Tarjan): the cycles. */
    static List<Set<String>> cycles(Map<String, ? extends Map<String, ?>> graph) {
        Map<String, Integer> index = new HashMap<>();
        Map<String, Integer> low = new HashMap<>();
        Deque<String> stack = new ArrayDeque<>();
        Set<String> onStack = new TreeSet<>();
        List<Set<String>> found = new ArrayList<>();
        Set<String> nodes = new TreeSet<>(graph.keySet());
        graph.values().forEach(m -> nodes.addAll(m.keySet()));
        for (String n : nodes) {
            if (!index.containsKey(n)) {
                connect(n, graph, index, low, stack, onStack, found);
            }
        }
        return found;
    }

    private static void connect(
            String v,
            Map<String, ? extends Map<String, ?>> graph,
            Map<String, Integer> index,
            Map<String, Integer> low,
            Deque<String> stack,
            Set<String> onStack,
            List<Set<String>> found) {
        index.put(v, index.size());
        low.put(v, index.get(v));
        stack.push(v);
        onStack.add(v);
        Map<String, ?> out = graph.get(v);
        for (String w : out == null ? Set.<String>of() : out.keySet()) {
            if (!index.containsKey(w)) {
                connect(w, graph, index, low, stack, onStack, found);
                low.put(v, Math.min(low.get(v), low.get(w)));
            } else if (onStack.contains(w)) {
                low.put(v, Math.min(low.get(v), index.get(w)));
            }
        }
        if (low.get(v).equals(index.get(v))) {
            Set<String> component = new TreeSet<>();
            String w;
            do {
                w = stack.pop();
                onStack.remove(w);
                component.add(w);
            } while (!w.equals(v));
            if (component.size() > 1) {
                found.add(component);
            }
        }
    }

    @Test
    void theFinderFindsACycle() {
        // the check must be able to fail: a three-package ring like the one this test was written against
        Map<String, Map<String, Set<String>>> ring = Map.of(
                "a",
                Map.of("b", Set.of()),
                "b",
                Map.of("c", Set.of()),
                "c",
                Map.of("a", Set.of()),
                "d",
                Map.of("a", Set.of()));
        assertEquals(List.of(Set.of("a", "b", "c")), cycles(ring));
        assertEquals(List.of(), cycles(Map.of("a", Map.of("b", Set.of()), "b", Map.of("c", Set.of()))));
    }

    @Test
    void noPackageCycle() throws IOException {
        Map<String, Map<String, Set<String>>> graph = packageGraph();
        assertTrue(graph.containsKey(ROOT + "/cm"), "the classes were read: " + graph.keySet());
        assertTrue(
                graph.getOrDefault(ROOT, Map.of()).containsKey(ROOT + "/internal"),
                "verbs uses its internal package (the fd wait, the bridge): the graph has the edge a cycle would need");
        List<Set<String>> cycles = cycles(graph);
        assertEquals(
                List.of(),
                cycles,
                "package cycles:" + cycles.stream().map(c -> describe(c, graph)).collect(Collectors.joining()));
    }

    @Test
    void nothingBelowCmNamesIt() throws IOException {
        Map<String, Map<String, Set<String>>> graph = packageGraph();
        for (String below : List.of(ROOT, ROOT + "/internal", ROOT + "/ffi")) {
            assertEquals(
                    Set.of(),
                    graph.getOrDefault(below, Map.of()).getOrDefault(ROOT + "/cm", Set.of()),
                    below + " names the cm package above it");
        }
    }

    private static String describe(Set<String> cycle, Map<String, Map<String, Set<String>>> graph) {
        StringBuilder b = new StringBuilder();
        for (String from : cycle) {
            graph.getOrDefault(from, Map.of()).forEach((to, classes) -> {
                if (cycle.contains(to)) {
                    b.append("\n  ")
                            .append(from)
                            .append(" -> ")
                            .append(to)
                            .append(" by ")
                            .append(classes);
                }
            });
        }
        return b.toString();
    }
}
