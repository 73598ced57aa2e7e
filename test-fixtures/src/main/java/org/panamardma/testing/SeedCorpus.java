package org.panamardma.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Writes a fuzz target's committed seeds where Jazzer's JUnit integration replays them in every
 * {@code ./mvnw verify}: {@code <resources>/<package as path>/<Class>Inputs/<method>/seed-<name>}
 * (rpcrdma/FUZZING.md). Each module's seed writer ({@code FuzzSeeds}, {@code OncRpcFuzzSeeds},
 * {@code NfsFuzzSeeds}) builds the inputs and hands them here.
 */
public final class SeedCorpus {
    private SeedCorpus() {}

    /**
     * Writes {@code seeds} (name to bytes) for {@code testClass#method}, replacing seeds of the same name.
     *
     * @param resources the test resources directory the corpus lives under ({@code src/test/resources})
     * @param testClass the fuzz test's fully qualified class name
     * @param method the fuzz test's method name
     * @param seeds the seeds' file names and bytes
     */
    public static void write(Path resources, String testClass, String method, Map<String, byte[]> seeds) {
        int dot = testClass.lastIndexOf('.');
        Path dir = resources
                .resolve(testClass.substring(0, dot).replace('.', '/'))
                .resolve(testClass.substring(dot + 1) + "Inputs")
                .resolve(method);
        try {
            Files.createDirectories(dir);
            for (Map.Entry<String, byte[]> seed : seeds.entrySet()) {
                Files.write(dir.resolve("seed-" + seed.getKey()), seed.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        System.out.println(dir + ": " + seeds.size() + " seeds");
    }
}
