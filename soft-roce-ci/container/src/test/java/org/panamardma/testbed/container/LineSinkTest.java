package org.panamardma.testbed.container;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineSinkTest {
    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void linesSplitAcrossFramesComeOutWhole_andTheRestOnFlush() {
        List<String> lines = new ArrayList<>();
        LineSink sink = new LineSink(lines::add);
        sink.accept(b("device-suite: 4"));
        sink.accept(b("2 passed\r\nrxe8: 4: AC"));
        sink.accept(b("TIVE\n\n"));
        sink.accept(b("é without newline"));
        assertEquals(List.of("device-suite: 42 passed", "rxe8: 4: ACTIVE", ""), lines);
        sink.flush();
        assertEquals("é without newline", lines.get(3));
        sink.flush();
        assertEquals(4, lines.size());
    }
}
