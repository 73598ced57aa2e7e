package org.panamardma.verbs.ffi;

import java.io.IOException;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.PaddingLayout;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * </ul>
 */
final class JavaBindings {

    static final String PACKAGE = "org.panamardma.verbs.ffi";

    /** One Java-side binding of a symbols-list key, with its values (size/align, offset/size, value). */
    record Binding(String key, Map<String, Long> values, String javaType, String source) {}

    /** key -> bindings (a constant may be bound in more than one class; every binding is checked). */
    final Map<String, List<Binding>> bindings = new LinkedHashMap<>();
    /** Things that break the conventions (unnamed members, a layout named unlike its class...). */
    final List<String> problems = new ArrayList<>();
    /** Key order for writing the list: structs by name each followed by its fields, then constants, functions. */
    final List<String> orderedKeys = new ArrayList<>();

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
            for (var f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (!Modifier.isPublic(m) || !Modifier.isStatic(m) || !Modifier.isFinal(m) || f.isSynthetic()
                        || f.getName().contains("$") || f.isAnnotationPresent(NotInC.class)
                        || !(f.getType() == int.class || f.getType() == long.class || f.getType() == short.class
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
                b.add(new Binding(key, Map.of("value", value), f.getType().getName(),
                        c.getSimpleName() + "." + f.getName()));
            }
            if (c.getSimpleName().endsWith("_h")) {
                for (Method mth : c.getDeclaredMethods()) {
                    int m = mth.getModifiers();
                    String n = mth.getName();
                    if (!Modifier.isPublic(m) || !Modifier.isStatic(m) || mth.isSynthetic() || n.contains("$")
                            || !(n.startsWith("ibv_") || n.startsWith("rdma_") || n.startsWith("_"))
                            || mth.isAnnotationPresent(NotInC.class)) {
                        continue;
                    }
                    String key = "func " + n;
                    if (funcs.add(key)) {
                        b.add(new Binding(key, Map.of(), "function", c.getSimpleName() + "." + n + "()"));
                    }
                }
            }
        }
        structs.values().forEach(b.orderedKeys::addAll);
        b.orderedKeys.addAll(consts);
        b.orderedKeys.addAll(funcs);
        return b;
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
        if (!Modifier.isStatic(layout.getModifiers()) || !Modifier.isPublic(layout.getModifiers())
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
            problems.add(tag + ".layout() is named " + g.name().map(n -> "\"" + n + "\"").orElse("(unnamed)")
                    + "; name it like the C tag and the class: .withName(\"" + tag + "\")");
        }
        String kw = g instanceof UnionLayout ? "union" : "struct";
        String key = kw + " " + tag;
        add(new Binding(key, Map.of("size", g.byteSize(), "align", g.byteAlignment()), kw,
                tag + ".layout()"));
        List<String> keys = new ArrayList<>();
        keys.add(key);
        walk(tag, g, "", 0, "", keys);
        return keys;
    }

    private void walk(String tag, GroupLayout g, String cPrefix, long base, String javaPrefix, List<String> keys) {
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
                        + (javaPrefix.isEmpty() ? "the " + (g instanceof UnionLayout ? "union" : "struct")
                                : javaPrefix.substring(0, javaPrefix.length() - 1))
                        + " has no name; name it like the C field (anonymous struct/union: \"$anonN\")");
                continue;
            }
            String n = name.get();
            if (n.startsWith("$anon")) {
                if (m instanceof GroupLayout inner) {
                    walk(tag, inner, cPrefix, memberOffset, javaPrefix + n + ".", keys);
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
            add(new Binding(key, Map.of("offset", memberOffset, "size", m.byteSize()), kind(m),
                    tag + ".layout() " + javaPrefix + n));
            keys.add(key);
            if (m instanceof GroupLayout inner) {
                walk(tag, inner, cPath + ".", memberOffset, javaPrefix + n + ".", keys);
            } else if (m instanceof SequenceLayout s) {
                String index = "[0]";
                MemoryLayout e = s.elementLayout();
                while (e instanceof SequenceLayout nested) {
                    index += "[0]";
                    e = nested.elementLayout();
                }
                if (e instanceof GroupLayout inner) {
                    walk(tag, inner, cPath + index + ".", memberOffset, javaPrefix + n + index + ".", keys);
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
            where = Path.of(verbs_h.class.getProtectionDomain().getCodeSource().getLocation().toURI());
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
                    jar.stream().map(e -> e.getName())
                            .filter(n -> n.startsWith(dir) && n.indexOf('/', dir.length()) < 0)
                            .map(n -> n.substring(dir.length())).forEach(names::add);
                }
            }
        } catch (IOException e) {
            throw new AssertionError("cannot list the classes of " + PACKAGE + " in " + where, e);
        }
        List<Class<?>> classes = new ArrayList<>();
        for (String n : new TreeSet<>(names)) {
            if (!n.endsWith(".class") || n.contains("$") || n.equals("package-info.class")
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
