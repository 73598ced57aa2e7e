package org.panamardma.nfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Says where a fio verify failure over an NFS mount came from, from fio's dumps ({@code --verify_dump=1}): whether
 * the server's file holds what fio expected (then the READ path returned wrong data) or what fio received (then the
 * WRITE path stored wrong data), and whether the wrong bytes are another page of the file (misplaced or stale data)
 * or zeros. The server's file is read where the server keeps it, bypassing the mount.
 */
final class FioVerifyFailure {
    private static final Pattern FAILED = Pattern.compile(
            "verify failed at file (\\S+) offset (\\d+), length (\\d+) \\(requested block: offset=(\\d+), length=(\\d+)");

    private FioVerifyFailure() {}

    /**
     * @param output fio's output
     * @param dumps fio's {@code --aux-path}, where it dumped the failed block
     * @param mount the mount point the fio files are under
     * @param export the server's directory that {@code mount} mounts
     * @return what the dumps tell, or why they tell nothing
     */
    static String explain(String output, Path dumps, Path mount, Path export) {
        Matcher m = FAILED.matcher(output);
        if (!m.find()) {
            return "fio failed without a verify failure";
        }
        Path file = Path.of(m.group(1));
        long offset = Long.parseLong(m.group(2));
        long length = Long.parseLong(m.group(3));
        long block = Long.parseLong(m.group(4));
        StringBuilder report = new StringBuilder("fio verify failure at ")
                .append(file)
                .append(" offset ")
                .append(offset)
                .append(" (")
                .append(length)
                .append(" bytes, in the block at ")
                .append(block)
                .append("):");
        try {
            Path onServer = export.resolve(mount.relativize(file));
            byte[] whole = Files.readAllBytes(onServer);
            List<Path> found;
            try (Stream<Path> s = Files.list(dumps)) {
                found = s.filter(p -> p.getFileName().toString().startsWith(file.getFileName() + "."))
                        .sorted()
                        .toList();
            }
            if (found.isEmpty()) {
                return report.append(" no dump in ").append(dumps).toString();
            }
            for (Path dump : found) {
                byte[] bytes = Files.readAllBytes(dump);
                long base = bytes.length == length ? offset : block;
                report.append("\n  ")
                        .append(dump.getFileName())
                        .append(" (")
                        .append(bytes.length)
                        .append(" bytes, taken at ")
                        .append(base)
                        .append("): against the server's file ")
                        .append(compare(bytes, whole, base));
                if (dump.getFileName().toString().endsWith("received")) {
                    report.append("; ").append(whereElse(bytes, whole, base));
                }
                Files.delete(dump);
            }
        } catch (IOException | RuntimeException e) {
            report.append(" could not read the dumps or the server's file: ").append(e);
        }
        return report.toString();
    }

    private static String compare(byte[] dump, byte[] file, long base) {
        int differing = 0;
        int first = -1;
        for (int i = 0; i < dump.length; i++) {
            long at = base + i;
            byte f = at < file.length ? file[(int) at] : 0;
            if (f != dump[i]) {
                differing++;
                if (first < 0) {
                    first = i;
                }
            }
        }
        return differing == 0 ? "equal" : differing + " bytes differ, the first at +" + first;
    }

    /** Each 4 KiB page of {@code received}: zeros, or where else in the file it is. */
    private static String whereElse(byte[] received, byte[] file, long base) {
        List<String> pages = new ArrayList<>();
        for (int p = 0; p + 4096 <= received.length; p += 4096) {
            byte[] page = Arrays.copyOfRange(received, p, p + 4096);
            if (isZero(page)) {
                pages.add("page +" + p + " zeros");
                continue;
            }
            List<Long> at = new ArrayList<>();
            for (long o = 0; o + 4096 <= file.length; o += 512) {
                if (Arrays.equals(page, 0, 4096, file, (int) o, (int) o + 4096)) {
                    at.add(o);
                }
            }
            if (!at.contains(base + p)) {
                pages.add("page +" + p + (at.isEmpty() ? " nowhere in the file" : " found in the file at " + at));
            }
        }
        return pages.isEmpty() ? "every received page is where it belongs" : String.join(", ", pages);
    }

    private static boolean isZero(byte[] page) {
        for (byte b : page) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
