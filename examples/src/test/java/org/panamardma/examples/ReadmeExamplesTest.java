package org.panamardma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation's Java code is this module's code, as Rust's doctests are the docs' code: every {@code ```java}
 * block of every Markdown file of the repository (README.md, the module READMEs, docs/, CONTRIBUTING.md...) is
 * preceded by {@code <!-- example: NAME -->}, and its lines are those between {@code // README begin: NAME} and
 * {@code // README end} in this module's sources (main or test), indentation aside. Those sources compile in the
 * build, and the device tests run them; so a block that no longer compiles, or that was changed without its source
 * (or the other way round), fails here, whichever Markdown file shows it.
 */
class ReadmeExamplesTest {
    private static final Path ROOT = Path.of("..");
    private static final Path README = ROOT.resolve("README.md");
    private static final Pattern MARKER = Pattern.compile("^<!-- example: ([a-z0-9-]+) -->$");
    private static final Pattern BEGIN = Pattern.compile("^\\s*// README begin: ([a-z0-9-]+)\\s*$");
    private static final Pattern END = Pattern.compile("^\\s*// README end\\s*$");

    /** README's java blocks by name, in order; a block without a name fails. */
    static Map<String, List<String>> readmeBlocks(List<String> readme) {
        return readmeBlocks(Path.of("README.md"), readme);
    }

    /** One Markdown file's java blocks by name, in order; a block without a name fails. */
    static Map<String, List<String>> readmeBlocks(Path file, List<String> readme) {
        Map<String, List<String>> blocks = new LinkedHashMap<>();
        for (int i = 0; i < readme.size(); i++) {
            if (!readme.get(i).equals("```java")) {
                continue;
            }
            Matcher m = i > 0 ? MARKER.matcher(readme.get(i - 1)) : null;
            if (m == null || !m.matches()) {
                fail(file + " line " + (i + 1) + ": a ```java block without '<!-- example: NAME -->' on the line "
                        + "before it, naming the region of examples/src that it shows");
            }
            List<String> block = new ArrayList<>();
            int j = i + 1;
            for (; j < readme.size() && !readme.get(j).equals("```"); j++) {
                block.add(readme.get(j));
            }
            assertTrue(j < readme.size(), file + " line " + (i + 1) + ": the block is not closed");
            if (blocks.put(m.group(1), block) != null) {
                fail(file + ": two blocks named " + m.group(1));
            }
            i = j;
        }
        return blocks;
    }

    /** The README regions of one source file by name, without their common indentation. */
    static Map<String, List<String>> sourceRegions(Path file, List<String> lines) {
        Map<String, List<String>> regions = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = BEGIN.matcher(lines.get(i));
            if (!m.matches()) {
                continue;
            }
            List<String> region = new ArrayList<>();
            int j = i + 1;
            for (; j < lines.size() && !END.matcher(lines.get(j)).matches(); j++) {
                region.add(lines.get(j));
            }
            assertTrue(j < lines.size(), file + " line " + (i + 1) + ": '// README begin' without '// README end'");
            regions.put(m.group(1), dedent(region));
            i = j;
        }
        return regions;
    }

    static List<String> dedent(List<String> lines) {
        int indent = lines.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        return lines.stream()
                .map(l -> l.isBlank() ? "" : l.substring(indent).stripTrailing())
                .toList();
    }

    static Map<String, List<String>> allSourceRegions() throws IOException {
        Map<String, List<String>> regions = new LinkedHashMap<>();
        for (String root : List.of("src/main/java", "src/test/java")) {
            try (Stream<Path> files = Files.walk(Path.of(root))) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java"))
                        .sorted()
                        .toList()) {
                    for (Map.Entry<String, List<String>> r :
                            sourceRegions(f, Files.readAllLines(f)).entrySet()) {
                        if (regions.put(r.getKey(), r.getValue()) != null) {
                            fail("two regions named " + r.getKey() + " (the second in " + f + ")");
                        }
                    }
                }
            }
        }
        return regions;
    }

    /** Every Markdown file of the repository, build output and git's own files aside. */
    static List<Path> markdownFiles() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> p.toString().endsWith(".md") && Files.isRegularFile(p))
                    .filter(p -> {
                        for (Path part : ROOT.relativize(p)) {
                            String name = part.toString();
                            if (name.equals("target") || name.equals(".git") || name.equals("node_modules")) {
                                return false;
                            }
                        }
                        return true;
                    })
                    .sorted()
                    .toList();
        }
    }

    /** The java blocks of all Markdown files by name; a name shown twice, in one file or two, fails. */
    static Map<String, List<String>> documentationBlocks(Path root, List<Path> files) throws IOException {
        Map<String, List<String>> blocks = new LinkedHashMap<>();
        Map<String, Path> shownIn = new LinkedHashMap<>();
        for (Path f : files) {
            Path name = root.relativize(f);
            for (Map.Entry<String, List<String>> b :
                    readmeBlocks(name, Files.readAllLines(f)).entrySet()) {
                Path earlier = shownIn.putIfAbsent(b.getKey(), name);
                if (earlier != null) {
                    fail("two blocks named " + b.getKey() + ": in " + earlier + " and " + name);
                }
                blocks.put(b.getKey(), b.getValue());
            }
        }
        return blocks;
    }

    @Test
    void everyJavaBlockOfTheDocumentationIsARegionOfTheseSourcesLineForLine() throws IOException {
        List<Path> files = markdownFiles();
        assertTrue(files.contains(README), "README.md not among " + files);
        Map<String, List<String>> inReadme = readmeBlocks(Files.readAllLines(README));
        assertTrue(
                inReadme.size() >= 5,
                "README's java blocks (the ten-line program and the layers' examples): " + inReadme.keySet());
        Map<String, List<String>> blocks = documentationBlocks(ROOT, files);
        Map<String, List<String>> regions = allSourceRegions();
        assertTrue(blocks.size() >= 8, "the documentation's java blocks: " + blocks.keySet());
        for (Map.Entry<String, List<String>> b : blocks.entrySet()) {
            List<String> region = regions.get(b.getKey());
            if (region == null) {
                fail("block '" + b.getKey() + "' has no '// README begin: " + b.getKey() + "' in examples/src");
            }
            List<String> block = dedent(b.getValue());
            for (int i = 0; i < Math.max(block.size(), region.size()); i++) {
                String inDocs = i < block.size() ? block.get(i) : "(the block has ended)";
                String inSource = i < region.size() ? region.get(i) : "(the region has ended)";
                assertEquals(
                        inSource,
                        inDocs,
                        "block '" + b.getKey() + "', line " + (i + 1)
                                + " of the block differs from the example source (expected: the source)");
            }
        }
        List<String> unused =
                regions.keySet().stream().filter(r -> !blocks.containsKey(r)).toList();
        assertEquals(List.of(), unused, "example regions that no Markdown block shows");
    }

    /** The checker itself: a block that differs by one character, or has no name, is caught. */
    @Test
    void aChangedOrUnnamedBlockIsCaught() {
        List<String> readme = List.of("text", "<!-- example: x -->", "```java", "int a = 1;", "```");
        assertEquals(Map.of("x", List.of("int a = 1;")), readmeBlocks(readme));
        Map<String, List<String>> regions = sourceRegions(
                Path.of("X.java"),
                List.of("class X {", "    // README begin: x", "    int a = 2;", "    // README end", "}"));
        assertEquals(Map.of("x", List.of("int a = 2;")), regions);
        assertTrue(!regions.get("x").equals(readmeBlocks(readme).get("x")));
        AssertionError unnamed =
                assertThrows(AssertionError.class, () -> readmeBlocks(List.of("```java", "int a;", "```")));
        assertTrue(unnamed.getMessage().contains("without '<!-- example: NAME -->'"), unnamed.getMessage());
    }

    /** A block moved out of the README is still checked, and one name shown in two files is caught. */
    @Test
    void blocksOfEveryMarkdownFileAreCheckedAndANameShownTwiceIsCaught(@TempDir Path root) throws IOException {
        List<String> block = List.of("<!-- example: x -->", "```java", "int a = 1;", "```");
        Path readme = Files.write(root.resolve("README.md"), List.of("no java here"));
        Path module = Files.write(Files.createDirectories(root.resolve("nfs")).resolve("README.md"), block);
        assertEquals(Map.of("x", List.of("int a = 1;")), documentationBlocks(root, List.of(readme, module)));
        Path copy = Files.write(root.resolve("CONTRIBUTING.md"), block);
        AssertionError twice =
                assertThrows(AssertionError.class, () -> documentationBlocks(root, List.of(readme, module, copy)));
        assertTrue(
                twice.getMessage().contains("two blocks named x: in nfs/README.md and CONTRIBUTING.md"),
                twice.getMessage());
        assertTrue(markdownFiles().contains(ROOT.resolve("nfs").resolve("README.md")), "the module READMEs are read");
    }

    /** What the NFS device test reads from NfsServer's statistics line (the line as the server writes it). */
    @Test
    void theNfsServersStatisticsLineIsReadAsTheDeviceTestExpects() {
        String line = "NFS calls LOOKUP=2 READ=4 WRITE=1; read 1048576 bytes, written 1048576 bytes; RDMA "
                + "/10.77.0.2:37651: calls {INLINE=5, READ_CHUNKS=1, POSITION_ZERO=0}, replies {INLINE=4, WRITE_LIST=2, "
                + "REPLY_CHUNK=0, ERR_VERS=0, ERR_CHUNK=0, DROPPED=0}, memory refusals 0, peak calls in progress 1";
        assertEquals(
                List.of(1048576L, 1048576L, 6L),
                java.util.Arrays.stream(ReadmeExamplesDeviceTests.moved(line))
                        .boxed()
                        .toList());
    }
}
