package org.panamardma.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The layering tests' scan of a module's sources (docs/architecture.md, "The dependency rule"): which Java files
 * below a directory use what they must not. Read as text, so that it sees an import, a fully-qualified name and a
 * string alike.
 */
public final class SourceScan {
    private SourceScan() {}

    /**
     * The Java files that mention any of {@code forbidden}.
     *
     * @param dir the directory to scan, relative to the module's directory (where the tests run)
     * @param depth how many directory levels below {@code dir} to scan (1: its own files only)
     * @param forbidden the strings that must not appear
     * @return the paths of the offending files, sorted; empty when none offends
     * @throws IOException when {@code dir} is not a directory or a file cannot be read
     */
    public static List<String> mentioning(Path dir, int depth, String... forbidden) throws IOException {
        return where(dir, depth, source -> Stream.of(forbidden).anyMatch(source::contains));
    }

    /**
     * The Java files whose source text satisfies {@code offends}.
     *
     * @param dir the directory to scan, relative to the module's directory (where the tests run)
     * @param depth how many directory levels below {@code dir} to scan (1: its own files only)
     * @param offends the test on a file's whole text
     * @return the paths of the offending files, sorted; empty when none offends
     * @throws IOException when {@code dir} is not a directory or a file cannot be read
     */
    public static List<String> where(Path dir, int depth, Predicate<String> offends) throws IOException {
        if (!Files.isDirectory(dir)) {
            // an empty list here would pass every layering test
            throw new IOException("no directory " + dir.toAbsolutePath() + ": run from the module's directory");
        }
        try (Stream<Path> files = Files.walk(dir, depth)) {
            return files.filter(f -> f.toString().endsWith(".java"))
                    .sorted()
                    .filter(f -> offends.test(read(f)))
                    .map(Path::toString)
                    .toList();
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
