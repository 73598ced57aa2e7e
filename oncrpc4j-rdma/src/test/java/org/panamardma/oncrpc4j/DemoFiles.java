package org.panamardma.oncrpc4j;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The files the demo program's READ serves in the tests: a pattern of known bytes per size. */
final class DemoFiles {
    private DemoFiles() {}

    /** Byte i of a file of {@code size} bytes: (i * 31 + size) mod 253. */
    static byte[] pattern(int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) ((i * 31L + size) % 253);
        }
        return b;
    }

    /** The name of the file of {@code size} bytes. */
    static String name(int size) {
        return "file-" + size;
    }

    /** Writes a file of each size into {@code directory}. */
    static void create(Path directory, int... sizes) throws IOException {
        for (int size : sizes) {
            Files.write(directory.resolve(name(size)), pattern(size));
        }
    }
}
