package org.panamardma.testbed.container;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

/**
 * Turns the chunks of a stream (Docker sends a command's output in frames that split lines anywhere) into whole
 * lines for a consumer; what is left without a newline comes out on {@link #flush()}.
 */
final class LineSink {
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private final Consumer<String> lines;

    LineSink(Consumer<String> lines) {
        this.lines = lines;
    }

    synchronized void accept(byte[] chunk) {
        for (byte b : chunk) {
            if (b == '\n') {
                emit();
            } else {
                pending.write(b);
            }
        }
    }

    synchronized void flush() {
        if (pending.size() > 0) {
            emit();
        }
    }

    private void emit() {
        String line = pending.toString(StandardCharsets.UTF_8);
        pending.reset();
        lines.accept(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
    }
}
