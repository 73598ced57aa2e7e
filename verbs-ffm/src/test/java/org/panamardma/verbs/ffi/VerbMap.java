package org.panamardma.verbs.ffi;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.panamardma.verbs.Verb;

/**
 * The verb map: which C functions the bindings call ({@link JavaBindings}: the functions of the {@code *_h} classes
 * and the function-pointer members of {@link VerbsOps}' {@link CallsThrough}), which public methods of the exported
 * packages name them ({@link Verb}), which are internal ({@link #INTERNAL}), and which test classes call those
 * methods (a scan of the test sources, {@link #testsOf}). {@code docs/verbs.md} is {@link #render()}'s output.
 */
final class VerbMap {

    /**
     * Bound functions no public method is the API of, each with the reason and the public method that reaches it
     * where one does. Reviewed: adding a name here needs the same review as a public method would.
     */
    static final Map<String, String> INTERNAL = new TreeMap<>(Map.ofEntries(
            Map.entry(
                    "ibv_free_device_list",
                    "frees the list `Device.list()`, `Device.byName()` and "
                            + "`Context.open()` took, in the same call"),
            Map.entry(
                    "ibv_qp_to_qp_ex",
                    "a cast, not an operation: a queue pair takes its `ibv_qp_ex` view once "
                            + "when made (`QueuePairBuilder.prepare()`, `CmId.createQueuePair()`)"),
            Map.entry("ibv_wr_start", "opens every post of the extended send path (`QueuePair.post*`)"),
            Map.entry("ibv_wr_complete", "closes every post of the extended send path (`QueuePair.post*`)"),
            Map.entry(
                    "ibv_wr_abort",
                    "undoes a post of the extended send path that failed before "
                            + "`ibv_wr_complete` (`QueuePair.post*`)"),
            Map.entry(
                    "ibv_wr_set_sge",
                    "sets the one segment of every `QueuePair.post*` that takes a "
                            + "`MemoryRegion`, offset and length"),
            Map.entry(
                    "ibv_query_gid",
                    "bound, not called: `Context.gidTable()` reads the whole table with one "
                            + "`ibv_query_gid_table`"),
            Map.entry(
                    "ibv_query_gid_ex",
                    "bound, not called: `Context.gidTable()` reads the whole table with one "
                            + "`ibv_query_gid_table`"),
            Map.entry(
                    "ibv_wc_status_str",
                    "libibverbs' text of a status: `DeviceQueryDeviceTest` checks "
                            + "`WcStatus.description()` against it; the Java side keeps its own table"),
            Map.entry("ibv_event_type_str", "bound, not called: `AsyncEventType` names the events itself"),
            Map.entry("rdma_event_str", "bound, not called: `CmEventType` names the events itself")));

    /** Where the test sources are scanned from (the module's directory is the working directory of its tests). */
    static final Path TEST_SOURCES = Path.of("src/test/java");

    /** A public method (or a resource class's close()) that names verbs. */
    record ApiMethod(String type, String method, String display, List<String> verbs) {}

    /** The C name of each bound function: functions as bound, pointer members as the inline verb that calls them. */
    final Set<String> bound = new TreeSet<>();
    /** verb -> the public methods naming it. */
    final Map<String, List<ApiMethod>> methodsOf = new TreeMap<>();
    /** verb -> test classes that call one of its methods. */
    final Map<String, Set<String>> testsOf = new TreeMap<>();
    /** Things the check refuses. */
    final List<String> problems = new ArrayList<>();

    static VerbMap build() {
        VerbMap map = new VerbMap();
        JavaBindings java = JavaBindings.scan();
        java.descriptors.keySet().forEach(key -> map.bound.add(verbName(key)));
        for (ApiMethod m : apiMethods()) {
            for (String v : m.verbs()) {
                map.methodsOf.computeIfAbsent(v, k -> new ArrayList<>()).add(m);
            }
        }
        Map<String, String> tests = testSources();
        Set<String> distinctive = distinctiveNames();
        for (var e : map.methodsOf.entrySet()) {
            Set<String> callers = new TreeSet<>();
            for (ApiMethod m : e.getValue()) {
                callers.addAll(callersOf(m, distinctive.contains(m.method()), tests));
            }
            map.testsOf.put(e.getKey(), testClassesThrough(callers, tests));
        }
        for (String b : map.bound) {
            if (!map.methodsOf.containsKey(b) && !INTERNAL.containsKey(b)) {
                map.problems.add(b + " is bound but no public method names it with @Verb(\"" + b
                        + "\"), and VerbMap.INTERNAL does not list it with a reason");
            }
            if (map.methodsOf.containsKey(b) && INTERNAL.containsKey(b)) {
                map.problems.add(b + " is named by @Verb and listed in VerbMap.INTERNAL: one or the other");
            }
        }
        for (String i : INTERNAL.keySet()) {
            if (!map.bound.contains(i)) {
                map.problems.add("VerbMap.INTERNAL lists " + i + ", which the bindings do not bind");
            }
        }
        for (var e : map.methodsOf.entrySet()) {
            if (!map.bound.contains(e.getKey())) {
                map.problems.add(e.getValue().getFirst().display() + " names " + e.getKey()
                        + " with @Verb, which the bindings do not bind (a typo, or a C name for a pointer member?)");
            }
            if (map.testsOf.get(e.getKey()).isEmpty()) {
                map.problems.add(e.getKey() + " is exercised by no test: no file under " + TEST_SOURCES + " calls "
                        + e.getValue().stream().map(ApiMethod::display).collect(Collectors.joining(", ")));
            }
        }
        return map;
    }

    /**
     * The C name of a bound-function key: "func f" is f (a "_f" is the versioned entry point behind the static
     * inline f: "_ibv_query_gid_table" is ibv_query_gid_table); "field S m" is the static inline verb of verbs.h
     * that calls through S.m: ibv_cq_ex's read_* are ibv_wc_read_*, every other member m is ibv_m.
     */
    static String verbName(String key) {
        if (key.startsWith("func ")) {
            String f = key.substring("func ".length());
            return f.startsWith("_") ? f.substring(1) : f;
        }
        String[] p = key.split(" ");
        String struct = p[1];
        String member = p[2];
        if (struct.equals("ibv_cq_ex") && member.startsWith("read_")) {
            return "ibv_wc_" + member;
        }
        return "ibv_" + member;
    }

    /** The public methods and resource classes of the exported packages that carry {@link Verb}. */
    static List<ApiMethod> apiMethods() {
        List<ApiMethod> methods = new ArrayList<>();
        for (Class<?> c : exportedClasses()) {
            Verb[] onType = c.getAnnotationsByType(Verb.class);
            if (onType.length > 0) {
                methods.add(new ApiMethod(
                        c.getSimpleName(),
                        "close",
                        c.getSimpleName() + ".close()",
                        Arrays.stream(onType).map(Verb::value).toList()));
            }
            List<Executable> members = new ArrayList<>(publicSurface(c));
            members.addAll(Arrays.asList(c.getDeclaredConstructors()));
            for (Executable m : members) {
                Verb[] verbs = m.getAnnotationsByType(Verb.class);
                if (verbs.length == 0) {
                    continue;
                }
                String name = m instanceof java.lang.reflect.Constructor<?> ? c.getSimpleName() : m.getName();
                String params = Arrays.stream(m.getParameterTypes())
                        .map(Class::getSimpleName)
                        .collect(Collectors.joining(", "));
                methods.add(new ApiMethod(
                        c.getSimpleName(),
                        name,
                        c.getSimpleName() + "." + name + "(" + params + ")",
                        Arrays.stream(verbs).map(Verb::value).toList()));
            }
        }
        methods.sort(java.util.Comparator.comparing(ApiMethod::display));
        return methods;
    }

    /**
     * The method names a call of which cannot be another method's: camelCase (two words or more, so not a JDK
     * name such as close, await, poll, connect, bind) and declared public by one class of the exported packages.
     */
    static Set<String> distinctiveNames() {
        Map<String, Set<Class<?>>> declarers = new TreeMap<>();
        for (Class<?> c : exportedClasses()) {
            for (var m : publicSurface(c)) {
                if (Modifier.isPublic(m.getModifiers())) {
                    declarers
                            .computeIfAbsent(m.getName(), k -> new java.util.HashSet<>())
                            .add(c);
                }
            }
        }
        Set<String> names = new TreeSet<>();
        declarers.forEach((name, classes) -> {
            if (classes.size() == 1 && !name.equals(name.toLowerCase(java.util.Locale.ROOT))) {
                names.add(name);
            }
        });
        return names;
    }

    /**
     * The methods {@code c} declares, and those of its package-private superclasses: a public class split into rooms
     * ({@code QueuePair} over {@code TwoSidedQueuePair} and {@code QueuePairResource}) has its public methods
     * declared there, and javadoc documents them as the public class's. javac's visibility bridges for them (synthetic
     * copies in {@code c}) are left out, so that each method counts once, under the public class's name.
     */
    private static List<Method> publicSurface(Class<?> c) {
        List<Method> methods = new ArrayList<>();
        for (Class<?> k = c; k != null && (k == c || !Modifier.isPublic(k.getModifiers())); k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) {
                if (!m.isSynthetic()) {
                    methods.add(m);
                }
            }
        }
        return methods;
    }

    /** Every class of an unqualified export of the module, with the annotations it is not allowed to carry. */
    private static List<Class<?>> exportedClasses() {
        Module module = Verb.class.getModule();
        Set<String> packages = new TreeSet<>();
        if (module.isNamed()) {
            module.getDescriptor().exports().stream()
                    .filter(e -> !e.isQualified())
                    .map(ModuleDescriptor.Exports::source)
                    .forEach(packages::add);
        } else {
            packages.addAll(List.of(
                    "org.panamardma.verbs",
                    "org.panamardma.verbs.cm",
                    "org.panamardma.verbs.connection",
                    "org.panamardma.verbs.connection.agent",
                    "org.panamardma.verbs.extensions"));
        }
        Path where;
        try {
            where = Path.of(Verb.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
        List<String> names = new ArrayList<>();
        try {
            if (Files.isDirectory(where)) {
                try (Stream<Path> files = Files.walk(where)) {
                    files.map(p -> where.relativize(p).toString().replace('\\', '/'))
                            .forEach(names::add);
                }
            } else {
                try (JarFile jar = new JarFile(where.toFile())) {
                    jar.stream().map(e -> e.getName()).forEach(names::add);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<Class<?>> classes = new ArrayList<>();
        for (String n : new TreeSet<>(names)) {
            if (!n.endsWith(".class") || n.endsWith("-info.class")) {
                continue;
            }
            String className = n.substring(0, n.length() - ".class".length()).replace('/', '.');
            String pkg = className.substring(0, className.lastIndexOf('.'));
            if (!packages.contains(pkg)) {
                continue;
            }
            try {
                Class<?> c = Class.forName(className, false, Verb.class.getClassLoader());
                if (Modifier.isPublic(c.getModifiers()) && !c.isAnonymousClass() && !c.isSynthetic()) {
                    classes.add(c);
                }
            } catch (ClassNotFoundException e) {
                throw new AssertionError(e);
            }
        }
        return classes;
    }

    /** Test class simple name -> its source, of every file under {@link #TEST_SOURCES} but this check's own. */
    private static Map<String, String> testSources() {
        Map<String, String> sources = new TreeMap<>();
        if (!Files.isDirectory(TEST_SOURCES)) {
            throw new AssertionError("no " + TEST_SOURCES.toAbsolutePath() + ": run the check from verbs-ffm");
        }
        try (Stream<Path> files = Files.walk(TEST_SOURCES)) {
            for (Path p : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                String name = p.getFileName().toString().replace(".java", "");
                if (name.startsWith("VerbMap")) {
                    continue;
                }
                sources.put(name, Files.readString(p));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sources;
    }

    /**
     * The test classes that call a method, by a scan of their sources (not a call graph, not a run): a file counts
     * when it calls the method by name ({@code .name(}, {@code ::name}) and either names the method's type as a word
     * (declares, imports or calls a static method of it) or the name is {@link #distinctiveNames distinctive} (a
     * receiver held in a helper's field: {@code pair.a.postBindMemoryWindow(...)}); for a resource class's close(),
     * when it names the type and calls {@code .close()} or opens a try-with-resources. What it can get wrong: a
     * file that calls another type's method of the same short name and also names this type counts (calls
     * {@code EventChannel.poll} and names {@code CompletionQueue}), a call inside a comment counts, and a call made
     * only by main code the test calls (a connection reaching {@code QueuePair.postWrite}) does not. A helper that
     * calls it (RcPair, StubLoopback...) is replaced by the test classes naming it ({@link #testClassesThrough}).
     * Whether those tests pass is the suite's business, not this check's.
     */
    static Set<String> callersOf(ApiMethod m, boolean distinctive, Map<String, String> tests) {
        Pattern type = Pattern.compile("\\b" + Pattern.quote(m.type()) + "\\b");
        Pattern call = m.method().equals("close")
                ? Pattern.compile("\\.close\\(\\)|\\btry \\(")
                : Pattern.compile("\\." + Pattern.quote(m.method()) + "\\s*\\(|::" + Pattern.quote(m.method()) + "\\b");
        Set<String> callers = new TreeSet<>();
        for (var e : tests.entrySet()) {
            String src = e.getValue();
            if ((distinctive || type.matcher(src).find()) && call.matcher(src).find()) {
                callers.add(e.getKey());
            }
        }
        return callers;
    }

    /** Whether a test source's class is a test class (JUnit's and the suite's naming), not a helper. */
    static boolean isTestClass(String name) {
        return name.endsWith("Test") || name.endsWith("Tests");
    }

    /**
     * The test classes among {@code callers}, with each helper (RcPair, CmTestPair, StubLoopback...) replaced by
     * the test classes that name it, through helpers of helpers.
     */
    static Set<String> testClassesThrough(Set<String> callers, Map<String, String> tests) {
        Set<String> result = new TreeSet<>();
        Set<String> seen = new TreeSet<>();
        java.util.ArrayDeque<String> todo = new java.util.ArrayDeque<>(callers);
        while (!todo.isEmpty()) {
            String c = todo.pop();
            if (!seen.add(c)) {
                continue;
            }
            if (isTestClass(c)) {
                result.add(c);
                continue;
            }
            Pattern named = Pattern.compile("\\b" + Pattern.quote(c) + "\\b");
            tests.forEach((name, src) -> {
                if (!name.equals(c) && named.matcher(src).find()) {
                    todo.add(name);
                }
            });
        }
        return result;
    }

    /** docs/verbs.md. */
    String render() {
        StringBuilder out = new StringBuilder();
        out.append("# Verbs: C function -> Java method -> tests\n\n");
        out.append("<!-- GENERATED by VerbMapTest from the @Verb annotations of verbs-ffm: do not edit by hand. -->\n");
        out.append("<!-- Regenerate: ").append(VerbMapTest.REGENERATE).append(" -->\n\n");
        out.append("Every C function verbs-ffm's bindings call (`native-headers/symbols/ffi.symbols`: the exported "
                + "functions, and the function-pointer members behind verbs.h's `static inline` verbs, named as the "
                + "inline verb), the public method(s) whose `@Verb` names it, and the test classes under "
                + "`verbs-ffm/src/test/java` that call those methods (found by a source scan, not a run: a file that calls the "
                + "method by name and names its type, or calls a camelCase name only one exported type declares; a "
                + "helper such as `RcPair` stands for the test classes that use it; `*DeviceTest(s)` classes run in "
                + "the testbed VM, the others on any host). A "
                + "resource class's `close()` is listed where it calls the destroy verb. `VerbMapTest` fails when a "
                + "bound function has no method and is not listed as internal below, or a named verb has no test.\n\n");
        out.append("| verb | Java | tests |\n|---|---|---|\n");
        for (var e : methodsOf.entrySet()) {
            out.append("| `")
                    .append(e.getKey())
                    .append("` | ")
                    .append(e.getValue().stream()
                            .map(m -> "`" + m.display() + "`")
                            .distinct()
                            .collect(Collectors.joining("<br>")))
                    .append(" | ")
                    .append(String.join(", ", testsOf.get(e.getKey())))
                    .append(" |\n");
        }
        out.append("\n## Internal: bound, named by no public method\n\n| function | why |\n|---|---|\n");
        INTERNAL.forEach(
                (k, v) -> out.append("| `").append(k).append("` | ").append(v).append(" |\n"));
        out.append("\n")
                .append(methodsOf.size())
                .append(" verbs with a Java method, ")
                .append(INTERNAL.size())
                .append(" internal, of ")
                .append(bound.size())
                .append(" bound C functions.\n");
        return out.toString();
    }
}
