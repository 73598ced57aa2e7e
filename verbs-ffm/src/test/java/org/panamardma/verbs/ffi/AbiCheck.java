package org.panamardma.verbs.ffi;

import java.io.IOException;
import java.lang.foreign.AddressLayout;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SequencedSet;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ABI check against one set of rdma-core headers: probes every item of the symbols list and of the Java side
 * (AbiProbe) and compares, taking the versions into account ({@link Since}):
 * <ul>
 *   <li>an item the set's version has: present and equal (struct size and alignment, field offset, size and
 *       kind, constant value, function declared and exported, prototype against the Java descriptor);</li>
 *   <li>an item that came later: absent (the compiler rejects it as undeclared / no such member; a function is
 *       also not exported), so a wrong annotation fails;</li>
 *   <li>a struct that grew ({@link Grew}): C's size is the Java layout cut before the first member the set
 *       lacks.</li>
 * </ul>
 */
final class AbiCheck {

    /**
     * A set of headers: its name, a label for messages, the rdma-core major and Linux uapi version it has, how to
     * compile against it (extra flags; linked against the installed libraries or not) and the libraries whose
     * exports (and symbol versions) it is checked against.
     */
    record HeaderSet(
            String name,
            String label,
            int rdmaCore,
            String linux,
            List<String> cflags,
            boolean linked,
            List<Path> libraries) {}

    /** The outcome: mismatches, notes, counts, and the one-line summary. */
    record Report(
            List<String> mismatches,
            List<String> notes,
            Map<String, Integer> counts,
            String summary,
            String compileCommand) {}

    static Report run(HeaderSet set, Path dir, String cc, JavaBindings java, SymbolsList list)
            throws IOException, InterruptedException {
        SequencedSet<String> keys = new LinkedHashSet<>(list.keys);
        keys.addAll(java.keys());
        Set<String> arrays = new LinkedHashSet<>();
        java.fieldLayouts.forEach((k, l) -> {
            if (l instanceof SequenceLayout) {
                arrays.add(k);
            }
        });
        AbiProbe.Options options = new AbiProbe.Options(
                set.linked(),
                set.cflags(),
                set.linked() ? List.of("-libverbs", "-lrdmacm") : List.of(),
                arrays,
                java.functionPointers);
        AbiProbe.Result probe = AbiProbe.run(dir, keys, cc, options);
        Map<String, String> exports = exports(set.libraries(), dir);

        List<String> mismatches = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        probe.header().forEach(h -> notes.add("probe: " + h));
        java.problems.forEach(p -> mismatches.add("convention: " + p));
        SymbolsList.disagreement(list, java).ifPresent(d -> mismatches.add("list: " + d));
        Map<String, Integer> counts = new TreeMap<>();
        List<String> opaque = new ArrayList<>();
        for (String key : keys) {
            String kind = SymbolsList.kind(key);
            JavaBindings.Version since = java.since(key);
            String rejected = probe.rejected().get(key);
            Map<String, String> c = probe.values().get(key);
            if (!since.in(set.rdmaCore(), set.linux())) {
                // came later than this set: the compiler must reject it as absent (and the library not export it)
                if (rejected == null) {
                    mismatches.add(key + ": @Since says " + since + ", but " + set.name() + " (rdma-core "
                            + set.rdmaCore() + ", Linux uapi " + set.linux() + ") has it: correct the @Since");
                } else if (!rejected.contains("-- not in these")) {
                    mismatches.add(key + ": expected absent from " + set.name() + " (@Since " + since
                            + "), but rejected for another reason: " + rejected);
                } else if (kind.equals("func") && exports.containsKey(key.substring(5))) {
                    mismatches.add(key + ": @Since says " + since + ", but " + set.name() + "'s library exports it");
                } else {
                    counts.merge("absent as expected", 1, Integer::sum);
                }
                continue;
            }
            if (rejected != null) {
                mismatches.add(key + ": " + rejected
                        + (since.equals(JavaBindings.Version.ALWAYS) ? "" : " (@Since " + since + ")"));
                continue;
            }
            if (c == null) {
                mismatches.add(key + ": the probe printed nothing for it");
                continue;
            }
            int before = mismatches.size();
            List<JavaBindings.Binding> bindings = java.bindings.getOrDefault(key, List.of());
            for (JavaBindings.Binding b : bindings) {
                Map<String, Long> expected = b.values();
                if (kind.equals("struct") || kind.equals("union")) {
                    JavaBindings.Struct s = java.structs.get(key.substring(kind.length() + 1));
                    if (s != null
                            && s.firstMissingIn(set.rdmaCore(), set.linux()).isPresent()) {
                        expected = s.sizeIn(set.rdmaCore(), set.linux());
                        counts.merge("smaller (grew later)", 1, Integer::sum);
                        notes.add(key + ": " + set.name() + " has the " + expected.get("size") + "-byte struct, "
                                + "Java's layout cut before "
                                + s.firstMissingIn(set.rdmaCore(), set.linux())
                                        .orElseThrow()
                                        .key()
                                        .replaceFirst("^field \\S+ ", "")
                                + " (@Grew(" + s.grew().value()
                                + "); Java " + s.layout().byteSize() + " bytes)");
                    }
                }
                for (var e : expected.entrySet()) {
                    String cValue = c.get(e.getKey());
                    if (cValue == null) {
                        mismatches.add(key + ": the probe printed no " + e.getKey());
                        continue;
                    }
                    long cv = Long.parseLong(cValue);
                    long jv = e.getValue();
                    boolean same = cv == jv || AbiTest.unsignedInNarrowJavaType(cv, jv, b.javaType());
                    if (!same) {
                        mismatches.add(key + ": " + e.getKey() + " C=" + cv + " Java=" + jv + "  (" + b.source()
                                + (kind.equals("const") ? ", " + b.javaType() : "") + ")");
                    }
                }
            }
            if (kind.equals("field")) {
                MemoryLayout layout = java.fieldLayouts.get(key);
                if (layout != null) {
                    String why = fieldKind(layout, c, probe.rejected().get(key + "|" + AbiProbe.Ref.ELEMENTS));
                    if (why == null) {
                        counts.merge("field types", 1, Integer::sum);
                    } else if (why.equals(OPAQUE)) {
                        counts.merge("opaque arrays", 1, Integer::sum);
                        opaque.add(key.substring(6));
                    } else {
                        mismatches.add(key + ": type: " + why);
                    }
                }
                JavaBindings.Descriptor d = java.descriptors.get(key);
                if (d != null) {
                    String fnRejected = probe.rejected().get(key + "|" + AbiProbe.Ref.FNPTR);
                    AbiProbe.Prototype p = probe.prototypes().get(key);
                    if (fnRejected != null || p == null) {
                        mismatches.add(key + ": function pointer called through " + d.source() + ": no C prototype ("
                                + (fnRejected != null ? fnRejected : "gcc -aux-info wrote none; is " + cc + " gcc?")
                                + ")");
                    } else {
                        compare(key, d, p, probe.types(), mismatches, counts, "function-pointer types");
                    }
                }
            }
            if (kind.equals("func")) {
                String name = key.substring(5);
                boolean exported = set.linked() ? "yes".equals(c.get("exported")) : exports.containsKey(name);
                if (!exported) {
                    mismatches.add(key + ": declared in the headers but not exported by " + set.name() + "'s "
                            + "libibverbs / librdmacm (static inline?), so a downcall to it cannot link; call it "
                            + "through the function pointer it reads from its struct instead");
                } else if ("yes".equals(c.get("macro"))) {
                    notes.add(key + ": is also a macro in the headers, so C callers get what the macro expands to; "
                            + "the binding calls the exported symbol of that name");
                }
                if (exports.containsKey(name) && !exports.get(name).isEmpty()) {
                    counts.merge("symbol versions", 1, Integer::sum);
                }
                JavaBindings.Descriptor d = java.descriptors.get(key);
                AbiProbe.Prototype p = probe.prototypes().get(key);
                if (d == null) {
                    mismatches.add(key + ": the Java side recorded no FunctionDescriptor for it");
                } else if (p == null) {
                    mismatches.add(key + ": gcc -aux-info wrote no prototype for it (is " + cc + " gcc?)");
                } else {
                    compare(key, d, p, probe.types(), mismatches, counts, "function types");
                }
            }
            if (mismatches.size() == before) {
                counts.merge(kind, 1, Integer::sum);
            }
        }
        if (!opaque.isEmpty()) {
            notes.add("C structs/unions bound as opaque arrays of the same size (never looked into): " + opaque);
        }
        if (!exports.isEmpty()) {
            Map<String, List<String>> byNode = new TreeMap<>();
            for (String key : keys) {
                if (key.startsWith("func ") && exports.containsKey(key.substring(5))) {
                    byNode.computeIfAbsent(exports.get(key.substring(5)), n -> new ArrayList<>())
                            .add(key.substring(5));
                }
            }
            notes.add("symbol versions: "
                    + byNode.entrySet().stream()
                            .map(e -> e.getKey() + " " + e.getValue())
                            .reduce((a, b) -> a + "; " + b)
                            .orElse(""));
        }
        String summary = "compared " + counts.getOrDefault("struct", 0) + " structs and "
                + counts.getOrDefault("union", 0) + " unions, " + counts.getOrDefault("field", 0) + " fields ("
                + counts.getOrDefault("field types", 0) + " types, " + counts.getOrDefault("opaque arrays", 0)
                + " opaque), " + counts.getOrDefault("const", 0) + " constants, " + counts.getOrDefault("func", 0)
                + " functions (" + counts.getOrDefault("function types", 0) + " prototypes, "
                + counts.getOrDefault("symbol versions", 0) + " symbol versions), "
                + counts.getOrDefault("function-pointer types", 0) + " function-pointer prototypes against "
                + set.label() + "; " + counts.getOrDefault("absent as expected", 0) + " items absent as expected "
                + "(@Since later), " + counts.getOrDefault("smaller (grew later)", 0) + " structs smaller as expected"
                + " (@Grew)";
        return new Report(mismatches, notes, counts, summary, probe.compileCommand());
    }

    static final String OPAQUE = "opaque";

    static String className(int cls) {
        return switch (cls) {
            case 1 -> "integer";
            case 5 -> "pointer";
            case 8 -> "floating";
            case 12 -> "struct";
            case 13 -> "union";
            case 0 -> "void";
            default -> "class " + cls;
        };
    }

    /** The C class a Java layout stands for (see probe.h). */
    static int classOf(MemoryLayout l) {
        return switch (l) {
            case AddressLayout a -> 5;
            case ValueLayout.OfFloat f -> 8;
            case ValueLayout.OfDouble d -> 8;
            case ValueLayout v -> 1;
            case StructLayout s -> 12;
            case UnionLayout u -> 13;
            default -> -1;
        };
    }

    /**
     * Why a field's Java layout is not of the C member's kind, or null, or {@link #OPAQUE} for a C struct/union
     * the Java side binds as an array of the same size (storage it never looks into, e.g. pthread_mutex_t).
     */
    static String fieldKind(MemoryLayout java, Map<String, String> c, String elementsRejected) {
        int cls = Integer.parseInt(c.getOrDefault("class", "-1"));
        boolean array = "1".equals(c.get("array"));
        String cKind = array ? "an array" : "a " + className(cls);
        if (java instanceof SequenceLayout s) {
            if (!array) {
                if (cls == 12 || cls == 13) {
                    return OPAQUE;
                }
                return "C has " + cKind + ", Java an array " + s;
            }
            if (elementsRejected != null || !c.containsKey("elements")) {
                return "C's array elements could not be probed: " + elementsRejected;
            }
            long n = Long.parseLong(c.get("elements"));
            long size = Long.parseLong(c.get("elem_size"));
            int elemCls = Integer.parseInt(c.get("elem_class"));
            boolean elemArray = "1".equals(c.get("elem_array"));
            MemoryLayout e = s.elementLayout();
            if (n != s.elementCount() || size != e.byteSize()) {
                return "C has " + n + " elements of " + size + " bytes, Java " + s.elementCount() + " of "
                        + e.byteSize() + " (" + s + ")";
            }
            if (elemArray != (e instanceof SequenceLayout)) {
                return "C's elements are " + (elemArray ? "" : "not ") + "arrays, Java's " + e;
            }
            if (!elemArray && classOf(e) != elemCls) {
                return "C's elements are of kind " + className(elemCls) + ", Java's " + e;
            }
            return null;
        }
        if (array) {
            return "C has an array, Java " + java;
        }
        if (classOf(java) != cls) {
            return "C has " + cKind + ", Java " + java + " (" + className(classOf(java)) + ")";
        }
        return null;
    }

    /** Compares a Java descriptor with a C prototype: count, and each kind and width. */
    static void compare(
            String key,
            JavaBindings.Descriptor d,
            AbiProbe.Prototype p,
            Map<String, AbiProbe.CType> types,
            List<String> mismatches,
            Map<String, Integer> counts,
            String counter) {
        List<String> why = new ArrayList<>();
        FunctionDescriptor fd = d.descriptor();
        Optional<MemoryLayout> ret = fd.returnLayout();
        String r = layoutVersusC("return", ret.orElse(null), types.get(p.ret()));
        if (r != null) {
            why.add(r);
        }
        List<MemoryLayout> args = fd.argumentLayouts();
        if (p.variadic()) {
            why.add("C's function is variadic");
        }
        if (args.size() != p.params().size()) {
            why.add("C has " + p.params().size() + " parameters, Java " + args.size());
        } else {
            for (int i = 0; i < args.size(); i++) {
                String a = layoutVersusC(
                        "parameter " + (i + 1),
                        args.get(i),
                        types.get(p.params().get(i)));
                if (a != null) {
                    why.add(a);
                }
            }
        }
        if (why.isEmpty()) {
            counts.merge(counter, 1, Integer::sum);
        } else {
            mismatches.add(key + ": " + d.source() + " " + fd + " does not match C's " + p.line() + ": "
                    + String.join("; ", why));
        }
    }

    private static String layoutVersusC(String what, MemoryLayout java, AbiProbe.CType c) {
        if (c == null || c.cls() < 0) {
            return what + ": C type " + (c == null ? "unknown" : "'" + c.text() + "' could not be probed");
        }
        if (java == null) {
            return c.cls() == 0 ? null : what + ": C " + c.text() + ", Java void";
        }
        int cls = c.cls() == 0 ? -1 : c.cls();
        if (classOf(java) != cls || java.byteSize() != c.size()) {
            return what + ": C " + c.text() + " (" + className(c.cls()) + ", " + c.size() + " bytes), Java " + java
                    + " (" + className(classOf(java)) + ", " + java.byteSize() + " bytes)";
        }
        return null;
    }

    /** The functions the libraries export (readelf --dyn-syms): name -> default symbol version node ("" if none). */
    static Map<String, String> exports(List<Path> libraries, Path dir) throws IOException, InterruptedException {
        Map<String, String> exports = new TreeMap<>();
        Pattern sym =
                Pattern.compile("^\\s*\\d+:\\s+\\S+\\s+\\d+\\s+(FUNC|IFUNC)\\s+(GLOBAL|WEAK)\\s+\\S+\\s+(\\S+)\\s+"
                        + "([^@\\s]+)(@@?)?(\\S*)");
        for (Path lib : libraries) {
            AbiProbe.Exec readelf = AbiProbe.exec(List.of("readelf", "--dyn-syms", "-W", lib.toString()), dir, 60);
            if (readelf.rc() != 0) {
                throw new AssertionError("readelf --dyn-syms " + lib + " failed:\n" + readelf.output());
            }
            for (String line : readelf.output().split("\n")) {
                Matcher m = sym.matcher(line);
                if (!m.find() || m.group(3).equals("UND")) {
                    continue;
                }
                boolean isDefault = "@@".equals(m.group(5)) || m.group(5) == null;
                if (isDefault || !exports.containsKey(m.group(4))) {
                    exports.put(m.group(4), m.group(6) == null ? "" : m.group(6));
                }
            }
        }
        return exports;
    }

    /** The Linux uapi version of a header tree, from its linux/version.h ("6.1"), or "" if there is none. */
    static String linuxUapi(Path include) throws IOException {
        Path v = include.resolve("linux/version.h");
        if (!Files.isRegularFile(v)) {
            return "";
        }
        Matcher m = Pattern.compile("#define LINUX_VERSION_CODE (\\d+)").matcher(Files.readString(v));
        if (!m.find()) {
            return "";
        }
        long code = Long.parseLong(m.group(1));
        return (code >> 16) + "." + ((code >> 8) & 0xff);
    }

    /** Prints the report and fails on mismatches or when nothing was compared. */
    static void assertClean(HeaderSet set, Report r) {
        System.out.println("[abi] " + set.name() + ": " + r.summary());
        r.notes().forEach(n -> System.out.println("[abi] " + set.name() + " note: " + n));
        if (!r.mismatches().isEmpty()) {
            throw new AssertionError(r.mismatches().size() + " ABI mismatches between " + JavaBindings.PACKAGE
                    + " and " + set.label() + ":\n  " + String.join("\n  ", r.mismatches()) + "\nprobe: "
                    + r.compileCommand());
        }
        for (String kind : List.of(
                "struct", "field", "field types", "const", "func", "function types", "function-pointer types")) {
            if (r.counts().getOrDefault(kind, 0) == 0) {
                throw new AssertionError("the ABI check compared no " + kind + " against " + set.label() + " ("
                        + r.summary() + "): the check itself is broken");
            }
        }
    }

    /** The versions of the packages in a header set's MANIFEST (fetch.sh): package -> version. */
    static Map<String, String> manifest(Path dir) throws IOException {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : Files.readAllLines(dir.resolve("MANIFEST"))) {
            String[] t = line.trim().split("\\s+");
            if (t.length == 2 && !line.startsWith("#")) {
                m.put(t[0], t[1]);
            }
        }
        return m;
    }

    /** The major of a Debian package version or pkg-config version of rdma-core ("44.0-2" -> 44). */
    static int rdmaCoreMajor(String version) {
        Matcher m = Pattern.compile("^(?:\\d+:)?(\\d+)").matcher(version);
        if (!m.find()) {
            throw new AssertionError("cannot read an rdma-core version from '" + version + "'");
        }
        return Integer.parseInt(m.group(1));
    }
}
