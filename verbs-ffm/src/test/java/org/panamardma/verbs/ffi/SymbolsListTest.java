package org.panamardma.verbs.ffi;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keeps native-headers/symbols/ffi.symbols true: it must list exactly what the ffi package binds, in both
 * directions. Runs everywhere (no compiler or headers needed). With {@code -Dabi.update=true} it rewrites the list
 * in the work tree from the Java side instead.
 */
class SymbolsListTest {

    @Test
    void symbolsListSaysExactlyWhatTheJavaSideBinds() throws IOException {
        JavaBindings java = JavaBindings.scan();
        if (Boolean.getBoolean("abi.update")) {
            Path file = SymbolsList.sourceFile()
                    .orElseThrow(() -> new AssertionError(
                            "abi.update: cannot find native-headers/ above " + System.getProperty("user.dir")
                                    + "; pass -Dabi.symbols=/path/to/native-headers/symbols/ffi.symbols"));
            String text = SymbolsList.render(java.lines());
            String before = Files.exists(file) ? Files.readString(file) : "";
            var old = SymbolsList.parse(before, file.toString());
            Files.createDirectories(file.getParent());
            Files.writeString(file, text);
            long added =
                    java.lines().stream().filter(k -> !old.lines.contains(k)).count();
            long removed =
                    old.lines.stream().filter(k -> !java.lines().contains(k)).count();
            System.out.println("abi.update: wrote " + java.keys().size() + " symbols to " + file + " (" + added
                    + " added, " + removed + " removed)");
        }
        if (!java.problems.isEmpty()) {
            fail("the ffi package breaks the binding conventions (native-headers/README.md):\n  "
                    + String.join("\n  ", java.problems));
        }
        if (!Boolean.getBoolean("abi.update")) {
            SymbolsList.disagreement(SymbolsList.load(), java).ifPresent(message -> fail(message));
        }
    }
}
