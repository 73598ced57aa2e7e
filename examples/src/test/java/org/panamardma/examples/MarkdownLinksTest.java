package org.panamardma.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link of the repository's Markdown files resolves: {@code [text](path)} names a file or folder that
 * exists (relative to the linking file, as GitHub resolves it), and {@code (path#heading)} or {@code (#heading)} a
 * heading of that Markdown file, by GitHub's anchor rule. Text moved from one file to another keeps its links
 * working, or this fails naming the file, the line and the link. Links with a scheme (https:, mailto:) are not
 * followed; links inside code (fenced blocks, inline code) are not links.
 */
class MarkdownLinksTest {
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");

    /** GitHub's anchor of a heading: lower case, punctuation dropped (not hyphens, underscores), spaces to hyphens. */
    static String anchor(String heading) {
        return heading.strip()
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N} _-]", "")
                .replace(' ', '-');
    }

    /** The lines of a Markdown file outside fenced code blocks (those inside become empty, keeping line numbers). */
    static List<String> prose(List<String> lines) {
        List<String> out = new ArrayList<>();
        boolean fenced = false;
        for (String line : lines) {
            if (line.stripLeading().startsWith("```")) {
                fenced = !fenced;
                out.add("");
            } else {
                out.add(fenced ? "" : line);
            }
        }
        return out;
    }

    /** The anchors of a Markdown file's headings; a repeated heading gets -1, -2... as on GitHub. */
    static Set<String> anchors(List<String> lines) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : prose(lines)) {
            Matcher m = HEADING.matcher(line);
            if (m.matches()) {
                String a = anchor(m.group(1));
                int n = seen.merge(a, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? a : a + "-" + n);
            }
        }
        return anchors;
    }

    /** The broken relative links of one Markdown file, as "file:line: link (why)". */
    static List<String> brokenLinks(Path root, Path file) throws IOException {
        List<String> broken = new ArrayList<>();
        List<String> lines = prose(Files.readAllLines(file));
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = LINK.matcher(INLINE_CODE.matcher(lines.get(i)).replaceAll(""));
            while (m.find()) {
                String link = m.group(1);
                if (SCHEME.matcher(link).find()) {
                    continue;
                }
                int hash = link.indexOf('#');
                String path = hash < 0 ? link : link.substring(0, hash);
                String heading = hash < 0 ? "" : link.substring(hash + 1);
                Path target =
                        path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                String where = root.relativize(file) + ":" + (i + 1) + ": " + link;
                if (!Files.exists(target)) {
                    broken.add(where + " (no such file)");
                } else if (!heading.isEmpty()
                        && target.toString().endsWith(".md")
                        && !anchors(Files.readAllLines(target)).contains(heading)) {
                    broken.add(where + " (no such heading in " + root.relativize(target) + ")");
                }
            }
        }
        return broken;
    }

    @Test
    void everyRelativeLinkOfEveryMarkdownFileResolves() throws IOException {
        Path root = Path.of("..");
        List<Path> files = ReadmeExamplesTest.markdownFiles();
        assertTrue(files.size() >= 10, "Markdown files: " + files);
        List<String> broken = new ArrayList<>();
        for (Path f : files) {
            broken.addAll(brokenLinks(root, f));
        }
        assertEquals(List.of(), broken, "broken links");
    }

    /** The checker itself: a missing file, a missing heading and a link inside code are told apart. */
    @Test
    void aMissingFileOrHeadingIsCaughtAndCodeIsNotALink(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("docs"));
        Files.write(
                root.resolve("docs/a.md"),
                List.of(
                        "# A",
                        "## The binding's own cost on the host CPU",
                        "## Twice",
                        "## Twice",
                        "```",
                        "## not a heading",
                        "```"));
        Path readme = Files.write(
                root.resolve("README.md"),
                List.of(
                        "[ok](docs/a.md) [ok](docs/a.md#the-bindings-own-cost-on-the-host-cpu) [ok](docs/a.md#twice-1)",
                        "[ok](#top) [web](https://example.org/x) `[code](nowhere.md)`",
                        "[gone](docs/b.md)",
                        "[no heading](docs/a.md#not-a-heading)",
                        "```",
                        "[in a block](nowhere.md)",
                        "```",
                        "# Top"));
        assertEquals(
                List.of(
                        "README.md:3: docs/b.md (no such file)",
                        "README.md:4: docs/a.md#not-a-heading (no such heading in docs/a.md)"),
                brokenLinks(root, readme));
        assertEquals(
                "tcprpcserver-onc-rpc-over-tcp-nfs-and-mount-of-the-nfs-server",
                anchor("`TcpRpcServer` (ONC RPC over TCP; NFS and MOUNT of the NFS server)"));
    }
}
