package org.panamardma.verbs.ffi;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.SequencedSet;

/**
 * native-headers/symbols/ffi.symbols: every struct, union, field, constant and function the ffi package binds,
 * names only, one per line ({@code struct T}, {@code union T}, {@code field T a.b}, {@code const NAME},
 * {@code func name}), followed by {@code since N} (and {@code linux X.Y}) for an item that the oldest supported
 * rdma-core lacks ({@link Since}); {@code #} starts a comment. The values come from the probe.
 */
final class SymbolsList {

    /** The list inside the native-headers jar (or target/classes), the way the tests read it. */
    static final String RESOURCE = "native-headers/symbols/ffi.symbols";
    /** The same file in the work tree, relative to the project root. */
    static final String SOURCE = "native-headers/symbols/ffi.symbols";

    /** How to rewrite the list from the Java side; part of every disagreement message. */
    static final String HOW_TO_UPDATE = "Regenerate it from the Java side with\n"
            + "  ./mvnw -q -pl verbs-ffm -am test -Dtest=SymbolsListTest -Dsurefire.failIfNoSpecifiedTests=false "
            + "-Dabi.update=true\nthen review and commit native-headers/symbols/ffi.symbols.";

    /** The items, without their versions ("field ibv_qp_ex wr_flush"). */
    final SequencedSet<String> keys;
    /** The whole lines, versions included ("field ibv_qp_ex wr_flush since 45"). */
    final SequencedSet<String> lines;

    final String origin;

    private SymbolsList(SequencedSet<String> lines, String origin) {
        this.lines = lines;
        this.keys = new LinkedHashSet<>();
        lines.forEach(l -> keys.add(key(l)));
        this.origin = origin;
    }

    /** The item of a list line: the line without its {@code since ...} part. */
    static String key(String line) {
        int since = line.indexOf(" since ");
        return since < 0 ? line : line.substring(0, since);
    }

    /** Reads the list from the classpath (the native-headers artifact), else from the work tree. */
    static SymbolsList load() {
        try (InputStream in = SymbolsList.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in != null) {
                return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), "classpath:" + RESOURCE);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path file = sourceFile()
                .orElseThrow(() -> new AssertionError(RESOURCE + " is neither on the classpath "
                        + "(test dependency org.panamardma:native-headers) nor found above "
                        + System.getProperty("user.dir")));
        try {
            return parse(Files.readString(file), file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static SymbolsList parse(String text, String origin) {
        SequencedSet<String> lines = new LinkedHashSet<>();
        for (String raw : text.split("\n")) {
            String line = normalize(raw);
            if (!line.isEmpty()) {
                lines.add(line);
            }
        }
        return new SymbolsList(lines, origin);
    }

    static String normalize(String line) {
        int hash = line.indexOf('#');
        return (hash >= 0 ? line.substring(0, hash) : line).trim().replaceAll("\\s+", " ");
    }

    /** The kind of a key: struct, union, field, const, func. */
    static String kind(String key) {
        return key.substring(0, key.indexOf(' '));
    }

    /**
     * The work-tree file: {@code -Dabi.symbols=PATH}, else native-headers/symbols/ffi.symbols in the working
     * directory or the nearest folder above it that has native-headers/pom.xml.
     */
    static Optional<Path> sourceFile() {
        String explicit = System.getProperty("abi.symbols", "").trim();
        if (!explicit.isEmpty()) {
            return Optional.of(Path.of(explicit));
        }
        for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("native-headers/pom.xml"))) {
                return Optional.of(dir.resolve(SOURCE));
            }
        }
        return Optional.empty();
    }

    /** The list text for these lines (in the given order). */
    static String render(List<String> keys) {
        StringBuilder s = new StringBuilder();
        s.append("""
                # Every C symbol the hand-written bindings (verbs-ffm, package org.panamardma.verbs.ffi) bind: names
                # only; the ABI probe (native-headers/probe) prints their sizes, offsets and values from the installed
                # rdma-core headers and AbiTest compares them with the Java layouts and constants.
                #   struct T / union T     sizeof and _Alignof
                #   field T a.b            offsetof and sizeof of the member (C member path)
                #   const NAME             value of the enum constant or macro
                #   func name              declared in the headers and exported by libibverbs / librdmacm
                #   ... since N [linux X.Y]  first in rdma-core N (and, for the kernel's uapi headers, Linux X.Y): the
                #                          check expects it absent from older header sets (@Since on the Java side)
                # GENERATED from the Java side: do not edit by hand. SymbolsListTest fails when this list and the
                # Java side disagree; regenerate with (see native-headers/README.md)
                #   ./mvnw -q -pl verbs-ffm -am test -Dtest=SymbolsListTest -Dsurefire.failIfNoSpecifiedTests=false -Dabi.update=true
                """);
        String previousKind = null;
        for (String key : keys) {
            String kind = kind(key);
            boolean group = kind.equals("struct") || kind.equals("union");
            if (group || (!kind.equals(previousKind) && !kind.equals("field"))) {
                s.append('\n');
            }
            s.append(key).append('\n');
            previousKind = group ? "field" : kind;
        }
        return s.toString();
    }

    /** What to add to and remove from the list so that it says what the Java side binds; empty if nothing. */
    static Optional<String> disagreement(SymbolsList list, JavaBindings java) {
        List<String> add = new ArrayList<>();
        List<String> javaLines = java.lines();
        for (String line : javaLines) {
            if (!list.lines.contains(line)) {
                add.add(line);
            }
        }
        List<String> remove = new ArrayList<>();
        for (String line : list.lines) {
            if (!javaLines.contains(line)) {
                remove.add(line);
            }
        }
        if (add.isEmpty() && remove.isEmpty()) {
            return Optional.empty();
        }
        StringBuilder s = new StringBuilder("the symbols list (" + list.origin + ") disagrees with the Java "
                + "bindings in " + JavaBindings.PACKAGE + ":");
        if (!add.isEmpty()) {
            s.append("\n add these ").append(add.size()).append(" lines (bound in Java, missing from the list):");
            add.forEach(k -> s.append("\n   ").append(k).append("   <- ").append(source(java, key(k))));
        }
        if (!remove.isEmpty()) {
            s.append("\n remove these ")
                    .append(remove.size())
                    .append(" lines (in the list, bound nowhere in Java, or with another version there):");
            remove.forEach(k -> s.append("\n   ").append(k));
        }
        s.append("\n").append(HOW_TO_UPDATE);
        s.append("\nA public static final long/int/short/byte that has no C name: annotate it @NotInC.");
        return Optional.of(s.toString());
    }

    private static String source(JavaBindings java, String key) {
        return java.bindings.get(key).stream()
                .map(JavaBindings.Binding::source)
                .reduce((a, b) -> a + ", " + b)
                .orElse("?");
    }
}
