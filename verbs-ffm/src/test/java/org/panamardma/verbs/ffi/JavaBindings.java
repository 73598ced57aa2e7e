package org.panamardma.verbs.ffi;

import java.io.IOException;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * What the Java side binds, found by reflection on the package {@code org.panamardma.verbs.ffi} (main classes only),
 * as symbols-list keys with the values the Java side assumes. The conventions (also in native-headers/README.md):
 * <ul>
 *   <li>struct/union: a top-level class with {@code public static GroupLayout layout()} (StructLayout or
 *       UnionLayout); the class and the layout are named like the C tag. Members are named like the C fields;
 *       nested named groups are walked as C member paths {@code a.b}; groups named {@code $anon...} are C's
 *       anonymous structs/unions and transparent in paths; padding is skipped; sequences of groups are walked as
 *       {@code a[0].b}.</li>
 *   <li>constant: a {@code public static final long/int/short/byte} field without {@code $} in its name, in any top-level class
 *       of the package.</li>
 *   <li>function: a public static method of a class whose name ends in {@code _h}, named {@code ibv_*},
 *       {@code rdma_*} or {@code _*} without {@code $}.</li>
 *   <li>{@link NotInC} on a field, method or class removes it from all of the above.</li>
 *   <li>{@link Since} on a constant, function, struct class, or a layout member's {@code <path>$OFFSET} constant
 *       (path with {@code $} for {@code .}): the rdma-core (and Linux uapi) release that brought it; members below a
 *       versioned member or in a versioned struct inherit it. A struct with versioned members carries
 *       {@link Grew}.</li>
 *   <li>descriptors: of the functions, those {@link Native} recorded; of the function-pointer members, those of
 *       the {@link VerbsOps} handles whose {@link CallsThrough} names them.</li>
 * </ul>
 */
final class JavaBindings {

    static final String PACKAGE = "org.panamardma.verbs.ffi";

    /** One Java-side binding of a symbols-list key, with its values (size/align, offset/size, value). */
    record Binding(String key, Map<String, Long> values, String javaType, String source) {}

    /** The release that brought an item: rdma-core major (0: every supported one) and Linux uapi ("": any). */
    record Version(int rdmaCore, String linux) {
        static final Version ALWAYS = new Version(0, "");

        static Version of(Since s) {
            return s == null ? ALWAYS : new Version(s.value(), s.linux());
        }

        /** The later of the two (each part). */
        Version max(Version o) {
            return new Version(Math.max(rdmaCore, o.rdmaCore), compareLinux(linux, o.linux) >= 0 ? linux : o.linux);
        }

        /** Whether a header set of this rdma-core major and Linux uapi version has the item. */
        boolean in(int rdmaCoreMajor, String linuxVersion) {
            return rdmaCore <= rdmaCoreMajor && compareLinux(linux, linuxVersion) <= 0;
        }

        /** The symbols-list suffix: "" or " since 45" or " since 45 linux 6.2". */
        String suffix() {
            if (equals(ALWAYS)) {
                return "";
            }
            return " since " + rdmaCore + (linux.isEmpty() ? "" : " linux " + linux);
        }

        @Override
        public String toString() {
            return equals(ALWAYS) ? "always" : "rdma-core " + rdmaCore + (linux.isEmpty() ? "" : ", Linux " + linux);
        }

        /** Compares dotted versions numerically ("" is the smallest). */
        static int compareLinux(String a, String b) {
            if (a.isEmpty() || b.isEmpty()) {
                return a.isEmpty() ? (b.isEmpty() ? 0 : -1) : 1;
            }
            String[] x = a.split("\\.");
            String[] y = b.split("\\.");
            for (int i = 0; i < Math.max(x.length, y.length); i++) {
                int d = Integer.compare(
                        i < x.length ? Integer.parseInt(x[i]) : 0, i < y.length ? Integer.parseInt(y[i]) : 0);
                if (d != 0) {
                    return d;
                }
            }
            return 0;
        }
    }

    /** A top-level member of a struct layout, in order (for the size of a struct that grew). */
    record Member(String key, long offset, MemoryLayout layout, Version since) {}

    /** A struct/union class: its layout, top-level members, and how it grew ({@link Grew}, or null). */
    record Struct(String tag, GroupLayout layout, List<Member> members, Grew grew) {
        /** The first top-level member a header set of this version lacks, if any. */
        Optional<Member> firstMissingIn(int rdmaCore, String linux) {
            return members.stream().filter(m -> !m.since().in(rdmaCore, linux)).findFirst();
        }

        /** The Java layout cut before that member: size and alignment C has in such a header set. */
        Map<String, Long> sizeIn(int rdmaCore, String linux) {
            Optional<Member> cut = firstMissingIn(rdmaCore, linux);
            if (cut.isEmpty()) {
                return Map.of("size", layout.byteSize(), "align", layout.byteAlignment());
            }
            long align = 1;
            for (Member m : members) {
                if (m == cut.get()) {
                    break;
                }
                align = Math.max(align, m.layout().byteAlignment());
            }
            long end = cut.get().offset();
            return Map.of("size", (end + align - 1) / align * align, "align", align);
        }
    }

    /** A Java descriptor to compare with a C prototype, and where it comes from. */
    record Descriptor(FunctionDescriptor descriptor, String source) {}

    /** key -> bindings (a constant may be bound in more than one class; every binding is checked). */
    final Map<String, List<Binding>> bindings = new LinkedHashMap<>();
    /** Things that break the conventions (unnamed members, a layout named unlike its class...). */
    final List<String> problems = new ArrayList<>();
    /** Key order for writing the list: structs by name each followed by its fields, then constants, functions. */
    final List<String> orderedKeys = new ArrayList<>();
    /** The release that brought each key ({@link Since}); keys not here are in every supported release. */
    final Map<String, Version> since = new LinkedHashMap<>();
    /** The Java layout of each field key (for the type check). */
    final Map<String, MemoryLayout> fieldLayouts = new LinkedHashMap<>();
    /** The struct/union classes by C tag. */
    final Map<String, Struct> structs = new LinkedHashMap<>();
    /** The descriptor of each bound function ("func name") and called function-pointer member ("field T m"). */
    final Map<String, Descriptor> descriptors = new LinkedHashMap<>();
    /** The function-pointer member keys among {@link #descriptors}. */
    final List<String> functionPointers = new ArrayList<>();

    static JavaBindings scan() {
        JavaBindings b = new JavaBindings();
        List<Class<?>> classes = classes();
        Map<String, List<String>> structs = new java.util.TreeMap<>();
        TreeSet<String> consts = new TreeSet<>();
        TreeSet<String> funcs = new TreeSet<>();
        for (Class<?> c : classes) {
            if (c.isAnnotationPresent(NotInC.class)) {
                continue;
            }
            Optional<GroupLayout> layout = b.layoutOf(c);
            layout.ifPresent(g -> structs.put(c.getSimpleName(), b.struct(c, g)));
            if (layout.isEmpty() && c.isAnnotationPresent(Grew.class)) {
                b.problems.add(c.getSimpleName() + " is @Grew but has no layout()");
            }
            for (var f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (!Modifier.isPublic(m)
                        || !Modifier.isStatic(m)
                        || !Modifier.isFinal(m)
                        || f.isSynthetic()
                        || f.getName().contains("$")
                        || f.isAnnotationPresent(NotInC.class)
                        || !(f.getType() == int.class
                                || f.getType() == long.class
                                || f.getType() == short.class
                                || f.getType() == byte.class)) {
                    continue;
                }
                long value;
                try {
                    value = f.getLong(null); // widens byte, short and int
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
                String key = "const " + f.getName();
                consts.add(key);
                b.version(key, Version.of(f.getAnnotation(Since.class)), c.getSimpleName() + "." + f.getName());
                b.add(new Binding(
                        key, Map.of("value", value), f.getType().getName(), c.getSimpleName() + "." + f.getName()));
            }
            if (c.getSimpleName().endsWith("_h")) {
                for (Method mth : c.getDeclaredMethods()) {
                    int m = mth.getModifiers();
                    String n = mth.getName();
                    if (!Modifier.isPublic(m)
                            || !Modifier.isStatic(m)
                            || mth.isSynthetic()
                            || n.contains("$")
                            || !(n.startsWith("ibv_") || n.startsWith("rdma_") || n.startsWith("_"))
                            || mth.isAnnotationPresent(NotInC.class)) {
                        continue;
                    }
                    String key = "func " + n;
                    b.version(key, Version.of(mth.getAnnotation(Since.class)), c.getSimpleName() + "." + n + "()");
                    if (funcs.add(key)) {
                        b.add(new Binding(key, Map.of(), "function", c.getSimpleName() + "." + n + "()"));
                        FunctionDescriptor d = descriptorOf(c, n);
                        if (d == null) {
                            b.problems.add(c.getSimpleName() + "." + n + "(): no FunctionDescriptor recorded for it "
                                    + "(build its handle with Native.Library.downcall, which records it)");
                        } else {
                            b.descriptors.put(key, new Descriptor(d, c.getSimpleName() + "." + n + "$MH"));
                        }
                    }
                }
            }
        }
        structs.values().forEach(b.orderedKeys::addAll);
        b.orderedKeys.addAll(consts);
        b.orderedKeys.addAll(funcs);
        b.functionPointers();
        return b;
    }

    /** The lines of the symbols list: keys with their versions. */
    List<String> lines() {
        return orderedKeys.stream().map(k -> k + since(k).suffix()).toList();
    }

    /** The release that brought a key. */
    Version since(String key) {
        return since.getOrDefault(key, Version.ALWAYS);
    }

    private void version(String key, Version v, String source) {
        if (v.equals(Version.ALWAYS)) {
            if (since.containsKey(key)) {
                problems.add(source + " has no @Since, but another binding of " + key + " has " + since.get(key));
            }
            return;
        }
        Version old = since.put(key, v);
        if (old != null && !old.equals(v)) {
            problems.add(source + ": @Since says " + v + ", another binding of " + key + " says " + old);
        }
    }

    /** The descriptor Native recorded for a function, after initialising its header class. */
    private static FunctionDescriptor descriptorOf(Class<?> headerClass, String function) {
        try {
            Class.forName(headerClass.getName(), true, headerClass.getClassLoader());
        } catch (ClassNotFoundException | ExceptionInInitializerError e) {
            throw new AssertionError("cannot initialise " + headerClass.getName(), e);
        }
        return Native.DESCRIPTORS.get(function);
    }

    /** The VerbsOps handles and the function-pointer members they call through ({@link CallsThrough}). */
    private void functionPointers() {
        for (Field f : VerbsOps.class.getDeclaredFields()) {
            CallsThrough calls = f.getAnnotation(CallsThrough.class);
            if (calls == null) {
                continue;
            }
            String source = "VerbsOps." + f.getName();
            FunctionDescriptor d;
            try {
                d = VerbsOps.DESCRIPTORS.get((MethodHandle) f.get(null));
            } catch (IllegalAccessException | ClassCastException e) {
                problems.add(source + ": @CallsThrough on something that is not a public MethodHandle: " + e);
                continue;
            }
            if (d == null) {
                problems.add(source + ": no FunctionDescriptor recorded for it (build it with VerbsOps.fast/slow)");
                continue;
            }
            for (String member : calls.value()) {
                int dot = member.indexOf('.');
                String key = dot < 0 ? member : "field " + member.substring(0, dot) + " " + member.substring(dot + 1);
                if (!(fieldLayouts.get(key) instanceof AddressLayout)) {
                    problems.add(source + ": @CallsThrough(\"" + member + "\") names no pointer member of a bound "
                            + "struct layout (want \"struct.member\")");
                } else if (descriptors.containsKey(key)) {
                    // a critical twin (VerbsOps.POST_WR_CRITICAL beside POST_WR) is checked with its plain handle:
                    // only a different descriptor for the same member is a problem
                    if (!descriptors.get(key).descriptor().equals(d)) {
                        problems.add(source + ": " + member + " is also called through "
                                + descriptors.get(key).source() + " with another descriptor");
                    }
                } else {
                    descriptors.put(key, new Descriptor(d, source));
                    functionPointers.add(key);
                }
            }
        }
    }

    /** The keys, in list order. */
    List<String> keys() {
        return Collections.unmodifiableList(orderedKeys);
    }

    private void add(Binding binding) {
        bindings.computeIfAbsent(binding.key(), k -> new ArrayList<>()).add(binding);
    }

    private Optional<GroupLayout> layoutOf(Class<?> c) {
        Method layout;
        try {
            layout = c.getDeclaredMethod("layout");
        } catch (NoSuchMethodException e) {
            return Optional.empty();
        }
        if (!Modifier.isStatic(layout.getModifiers())
                || !Modifier.isPublic(layout.getModifiers())
                || !GroupLayout.class.isAssignableFrom(layout.getReturnType())) {
            return Optional.empty();
        }
        try {
            return Optional.of((GroupLayout) layout.invoke(null));
        } catch (IllegalAccessException | InvocationTargetException e) {
            problems.add(c.getSimpleName() + ".layout() failed: " + (e.getCause() != null ? e.getCause() : e));
            return Optional.empty();
        }
    }

    /** Adds the struct/union and all its fields; returns their keys in layout order. */
    private List<String> struct(Class<?> c, GroupLayout g) {
        String tag = c.getSimpleName();
        if (!g.name().equals(Optional.of(tag))) {
            problems.add(tag + ".layout() is named "
                    + g.name().map(n -> "\"" + n + "\"").orElse("(unnamed)")
                    + "; name it like the C tag and the class: .withName(\"" + tag + "\")");
        }
        String kw = g instanceof UnionLayout ? "union" : "struct";
        String key = kw + " " + tag;
        add(new Binding(key, Map.of("size", g.byteSize(), "align", g.byteAlignment()), kw, tag + ".layout()"));
        Version classSince = Version.of(c.getAnnotation(Since.class));
        version(key, classSince, tag);
        List<String> keys = new ArrayList<>();
        keys.add(key);
        Set<String> offsetsUsed = new HashSet<>();
        List<Member> members = new ArrayList<>();
        walk(c, tag, g, "", 0, "", keys, classSince, offsetsUsed, members);
        for (Field f : c.getDeclaredFields()) {
            if (f.isAnnotationPresent(Since.class)
                    && f.getName().endsWith("$OFFSET")
                    && !offsetsUsed.contains(f.getName())) {
                problems.add(tag + "." + f.getName() + " has @Since but names no member of " + tag + ".layout()"
                        + " (want <member path with $ for .>$OFFSET)");
            }
        }
        Struct s = new Struct(tag, g, List.copyOf(members), c.getAnnotation(Grew.class));
        structs.put(tag, s);
        boolean grew = false;
        for (Member m : members) {
            if (!m.since().equals(classSince)) {
                grew = true;
            } else if (grew) {
                problems.add(tag + ".layout(): " + m.key() + " follows a member with @Since but has none itself; "
                        + "members that came later must be the last ones (C appends them)");
            }
        }
        if (grew != (s.grew() != null)) {
            problems.add(tag
                    + (grew
                            ? " has members with @Since but no @Grew: say why the shorter struct of an "
                                    + "older rdma-core is safe (@Grew(CALLER) or @Grew(LIBRARY))"
                            : " is @Grew, but no member of its layout has @Since"));
        }
        return keys;
    }

    private void walk(
            Class<?> c,
            String tag,
            GroupLayout g,
            String cPrefix,
            long base,
            String javaPrefix,
            List<String> keys,
            Version inherited,
            Set<String> offsetsUsed,
            List<Member> topLevel) {
        long offset = base;
        for (MemoryLayout m : g.memberLayouts()) {
            long memberOffset = g instanceof StructLayout ? offset : base;
            offset += g instanceof StructLayout ? m.byteSize() : 0;
            if (m instanceof PaddingLayout) {
                continue;
            }
            Optional<String> name = m.name();
            if (name.isEmpty()) {
                problems.add(tag + ".layout(): member at offset " + memberOffset + " of "
                        + (javaPrefix.isEmpty()
                                ? "the " + (g instanceof UnionLayout ? "union" : "struct")
                                : javaPrefix.substring(0, javaPrefix.length() - 1))
                        + " has no name; name it like the C field (anonymous struct/union: \"$anonN\")");
                continue;
            }
            String n = name.get();
            String offsetConstant = (javaPrefix + n).replace('.', '$') + "$OFFSET";
            Version v = inherited;
            try {
                Since s = c.getDeclaredField(offsetConstant).getAnnotation(Since.class);
                if (s != null) {
                    v = v.max(Version.of(s));
                    offsetsUsed.add(offsetConstant);
                }
            } catch (NoSuchFieldException e) {
                // no offset constant: nothing to say about its version
            }
            if (javaPrefix.isEmpty()) {
                topLevel.add(new Member("field " + tag + " " + cPrefix + n, memberOffset, m, v));
            }
            if (n.startsWith("$anon")) {
                if (m instanceof GroupLayout inner) {
                    walk(c, tag, inner, cPrefix, memberOffset, javaPrefix + n + ".", keys, v, offsetsUsed, topLevel);
                } else {
                    problems.add(tag + ".layout(): " + javaPrefix + n + " is named $anon... but is not a group");
                }
                continue;
            }
            String cPath = cPrefix + n;
            String key = "field " + tag + " " + cPath;
            if (bindings.containsKey(key)) {
                problems.add(tag + ".layout(): C member path " + cPath + " occurs twice");
                continue;
            }
            add(new Binding(
                    key,
                    Map.of("offset", memberOffset, "size", m.byteSize()),
                    kind(m),
                    tag + ".layout() " + javaPrefix + n));
            keys.add(key);
            fieldLayouts.put(key, m);
            version(key, v, tag + "." + offsetConstant);
            if (m instanceof GroupLayout inner) {
                walk(c, tag, inner, cPath + ".", memberOffset, javaPrefix + n + ".", keys, v, offsetsUsed, topLevel);
            } else if (m instanceof SequenceLayout s) {
                String index = "[0]";
                MemoryLayout e = s.elementLayout();
                while (e instanceof SequenceLayout nested) {
                    index += "[0]";
                    e = nested.elementLayout();
                }
                if (e instanceof GroupLayout inner) {
                    walk(
                            c,
                            tag,
                            inner,
                            cPath + index + ".",
                            memberOffset,
                            javaPrefix + n + index + ".",
                            keys,
                            v,
                            offsetsUsed,
                            topLevel);
                }
            }
        }
    }

    private static String kind(MemoryLayout m) {
        return switch (m) {
            case StructLayout s -> "struct";
            case UnionLayout u -> "union";
            case SequenceLayout s -> "array";
            default -> m.toString();
        };
    }

    /** The top-level classes of the package, from wherever the main classes are (a folder or a jar). */
    static List<Class<?>> classes() {
        Path where;
        try {
            where = Path.of(verbs_h.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new AssertionError(e);
        }
        String dir = PACKAGE.replace('.', '/') + "/";
        List<String> names = new ArrayList<>();
        try {
            if (Files.isDirectory(where)) {
                try (Stream<Path> files = Files.list(where.resolve(dir))) {
                    files.map(p -> p.getFileName().toString()).forEach(names::add);
                }
            } else {
                try (JarFile jar = new JarFile(where.toFile())) {
                    jar.stream()
                            .map(e -> e.getName())
                            .filter(n -> n.startsWith(dir) && n.indexOf('/', dir.length()) < 0)
                            .map(n -> n.substring(dir.length()))
                            .forEach(names::add);
                }
            }
        } catch (IOException e) {
            throw new AssertionError("cannot list the classes of " + PACKAGE + " in " + where, e);
        }
        List<Class<?>> classes = new ArrayList<>();
        for (String n : new TreeSet<>(names)) {
            if (!n.endsWith(".class")
                    || n.contains("$")
                    || n.equals("package-info.class")
                    || n.equals("module-info.class")) {
                continue;
            }
            String className = PACKAGE + "." + n.substring(0, n.length() - ".class".length());
            try {
                classes.add(Class.forName(className, false, verbs_h.class.getClassLoader()));
            } catch (ClassNotFoundException e) {
                throw new AssertionError(e);
            }
        }
        if (classes.isEmpty()) {
            throw new AssertionError("no classes of " + PACKAGE + " found in " + where);
        }
        return classes;
    }
}
