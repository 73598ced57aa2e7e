package org.panamardma.nfs.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The user or group ids the kernel can represent for this process: those its user namespace maps
 * ({@code /proc/self/uid_map}, {@code gid_map}; user_namespaces(7)). An id outside them, and (uid_t) -1 always, is
 * what knfsd calls invalid ({@code uid_valid(make_kuid(...))} false in {@code svcauth_unix_accept} and
 * {@code nfsd_setuser}): the kernel cannot make a file of it, and {@code setfsuid} to it fails. The initial
 * namespace maps 0 .. 4294967294.
 */
final class IdRanges {
    /** One line of a map: {@code count} ids from {@code first} (as the process sees them). */
    private record Range(long first, long count) {}

    /** The initial user namespace's map: every id but -1. */
    static final IdRanges ALL = new IdRanges(List.of(new Range(0, 0xFFFFFFFFL)));

    private final List<Range> ranges;

    private IdRanges(List<Range> ranges) {
        this.ranges = List.copyOf(ranges);
    }

    /** The user ids of this process's user namespace. */
    static IdRanges users() {
        return read(Path.of("/proc/self/uid_map"));
    }

    /** The group ids of this process's user namespace. */
    static IdRanges groups() {
        return read(Path.of("/proc/self/gid_map"));
    }

    /** A map file's ranges; without one (no user namespaces in the kernel), the initial namespace's. */
    static IdRanges read(Path map) {
        List<String> lines;
        try {
            lines = Files.readAllLines(map);
        } catch (IOException e) {
            return ALL;
        }
        return parse(lines);
    }

    /** Lines of {@code inside outside count}. */
    static IdRanges parse(List<String> lines) {
        List<Range> ranges = new ArrayList<>();
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3) {
                ranges.add(new Range(Long.parseLong(f[0]), Long.parseLong(f[2])));
            }
        }
        return new IdRanges(ranges);
    }

    /** Whether {@code id} (an unsigned 32-bit id) can be a file's owner here. */
    boolean isValid(int id) {
        if (id == -1) {
            return false;
        }
        long u = Integer.toUnsignedLong(id);
        for (Range r : ranges) {
            if (u >= r.first() && u - r.first() < r.count()) {
                return true;
            }
        }
        return false;
    }
}
