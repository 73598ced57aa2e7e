package org.panamardma.verbs.ffi;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The rdma-core header sets of native-headers/headers/sets and where native-headers/headers/fetch.sh unpacks them:
 * what the ABI check ({@link AbiVersionsTest}) and the stub provider ({@link StubProvider}) compile against. No JUnit
 * here: the benchmarks use the stub provider too.
 */
final class HeaderSets {
    private HeaderSets() {}

    static final String SETS = "native-headers/headers/sets";

    /** One line of the sets file: name, Debian suite, rdma-core's Debian package version (e.g. 56.1-1). */
    record SetLine(String name, String suite, String version) {
        /** Where fetch.sh unpacked it (its MANIFEST says what is there). */
        Path root() {
            return cache().resolve(name + "-" + version);
        }

        /** The rdma-core release, e.g. "56.1" of "56.1-1". */
        String release() {
            int dash = version.indexOf('-');
            return dash < 0 ? version : version.substring(0, dash);
        }
    }

    /** Where fetch.sh puts the sets. */
    static Path cache() {
        String p = System.getProperty("abi.headers", "").trim();
        if (!p.isEmpty()) {
            return Path.of(p);
        }
        String env = System.getenv("PANAMA_RDMA_HEADERS");
        if (env != null && !env.isBlank()) {
            return Path.of(env);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        // $HOME as fetch.sh reads it, not user.home (the passwd entry's): they differ when HOME is set for a run,
        // as CI's fresh-machine rehearsal does, and the test then looked where fetch.sh had not written
        String home = System.getenv("HOME");
        Path base = xdg != null && !xdg.isBlank()
                ? Path.of(xdg)
                : Path.of(home != null && !home.isBlank() ? home : System.getProperty("user.home"), ".cache");
        return base.resolve("panama-rdma/headers");
    }

    /** The lines of native-headers/headers/sets (classpath, else the work tree). */
    static List<SetLine> sets() throws IOException {
        String text;
        try (InputStream in = HeaderSets.class.getClassLoader().getResourceAsStream(SETS)) {
            if (in != null) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } else {
                Path file = SymbolsList.sourceFile()
                        .map(f -> f.getParent().getParent().resolve("headers/sets"))
                        .orElseThrow(() -> new AssertionError(SETS + " is neither on the classpath nor found"));
                text = Files.readString(file);
            }
        }
        List<SetLine> sets = new ArrayList<>();
        for (String raw : text.split("\n")) {
            String line = SymbolsList.normalize(raw);
            if (!line.isEmpty()) {
                String[] t = line.split(" ");
                if (t.length != 3) {
                    throw new AssertionError(SETS + ": want 'name suite version', got '" + raw + "'");
                }
                sets.add(new SetLine(t[0], t[1], t[2]));
            }
        }
        return sets;
    }
}
