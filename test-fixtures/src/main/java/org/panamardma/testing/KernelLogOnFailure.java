package org.panamardma.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Prints the kernel's last 30 messages when a device test fails ({@code @ExtendWith(KernelLogOnFailure.class)}): siw
 * ends connections and fails requests for reasons only its log gives (a TERMINATE's layer, type and code: "no
 * buffer available" ended an agent test's connection), and a test's failure then tells why.
 */
public final class KernelLogOnFailure implements TestWatcher {
    /** Made by JUnit for each test class that names it in {@code @ExtendWith}. */
    public KernelLogOnFailure() {}

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        try {
            Process p = new ProcessBuilder("sh", "-c", "dmesg | tail -n 30")
                    .redirectErrorStream(true)
                    .start();
            String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            System.out.println("kernel log after " + context.getDisplayName() + " failed:\n" + log);
        } catch (IOException e) {
            System.out.println("(no kernel log: " + e + ")");
        }
    }
}
