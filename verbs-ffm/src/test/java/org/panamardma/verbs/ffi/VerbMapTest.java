package org.panamardma.verbs.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The verb map is whole and docs/verbs.md says it: every bound C function is named by a public method's
 * {@link org.panamardma.verbs.Verb} or listed internal with a reason, every named verb is called by a test
 * ({@link VerbMap#callersOf} says how that is found), and the committed docs/verbs.md is what {@link VerbMap#render}
 * makes now. With {@code -Dverbs.update=true} it rewrites docs/verbs.md instead of comparing.
 */
class VerbMapTest {

    static final String REGENERATE = "./mvnw -q -o -pl verbs-ffm -am test -Dtest=VerbMapTest "
            + "-Dsurefire.failIfNoSpecifiedTests=false -Dverbs.update=true";

    /** The project's docs/verbs.md, from verbs-ffm (the working directory of its tests). */
    static final Path DOC = Path.of("..", "docs", "verbs.md");

    @Test
    void everyBoundFunctionHasAMethodOrAReasonAndEveryNamedVerbATest() {
        VerbMap map = VerbMap.build();
        if (!map.problems.isEmpty()) {
            fail("the verb map is not whole (see the Verb annotation and CONTRIBUTING.md, \"Add a verb\"):\n  "
                    + String.join("\n  ", map.problems));
        }
    }

    @Test
    void docsVerbsMdIsWhatTheGeneratorMakes() throws IOException {
        String now = VerbMap.build().render();
        if (Boolean.getBoolean("verbs.update")) {
            Files.writeString(DOC, now);
            System.out.println("verbs.update: wrote " + DOC.toAbsolutePath().normalize());
            return;
        }
        if (!Files.exists(DOC)) {
            fail(DOC.toAbsolutePath().normalize() + " is missing; generate it with\n  " + REGENERATE);
        }
        String committed = Files.readString(DOC);
        if (!committed.equals(now)) {
            String[] a = committed.split("\n", -1);
            String[] b = now.split("\n", -1);
            int i = 0;
            while (i < Math.min(a.length, b.length) && a[i].equals(b[i])) {
                i++;
            }
            assertEquals(
                    i < b.length ? b[i] : "(end)",
                    i < a.length ? a[i] : "(end)",
                    "docs/verbs.md is stale at line " + (i + 1) + " (expected: what the @Verb annotations and the "
                            + "tests make now); regenerate it with\n  " + REGENERATE + "\n");
        }
    }
}
