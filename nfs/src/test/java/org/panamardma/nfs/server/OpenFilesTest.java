package org.panamardma.nfs.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link OpenFiles} under concurrent calls with a bound far below the files in use: a lent descriptor is never closed
 * while a call holds it (its file is still the one it names, every time), the bound holds (exceeded only by
 * descriptors in use, one per thread at most), and closing the cache closes every descriptor, the lent ones when they
 * are given back.
 */
class OpenFilesTest {
    @TempDir
    Path dir;

    private List<ExportFs.Node> nodes(int n) throws Exception {
        List<ExportFs.Node> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Path f = Files.writeString(dir.resolve("f" + i), "file " + i);
            int fd = Posix.openat(Posix.AT_FDCWD, ExportFs.bytes(f.toString()), Posix.O_PATH, 0);
            nodes.add(new ExportFs.Node(fd, "f" + i, Posix.fstat(fd), null));
        }
        return nodes;
    }

    private static int openForIo(ExportFs.Node node, int flags) throws PosixException {
        return Posix.openat(Posix.AT_FDCWD, Posix.procPath(node.fd()), flags | Posix.O_NOCTTY, 0);
    }

    /** Descriptors of this process open on a file in {@code dir}. */
    private long openIn(Path dir) throws IOException {
        String prefix = dir.toAbsolutePath() + "/";
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> {
                        try {
                            return Files.readSymbolicLink(fd).toString().startsWith(prefix);
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .count();
        }
    }

    @Test
    void concurrentCallsNeverSeeADescriptorClosedUnderThemAndTheBoundHolds() throws Exception {
        List<ExportFs.Node> nodes = nodes(6);
        long pathFds = openIn(dir); // the nodes' own O_PATH descriptors
        OpenFiles files = new OpenFiles(OpenFilesTest::openForIo, 2, Duration.ofMillis(20));
        try (ExecutorService pool = Executors.newFixedThreadPool(8)) {
            List<Future<Void>> done = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                done.add(pool.submit(() -> {
                    ThreadLocalRandom r = ThreadLocalRandom.current();
                    for (int i = 0; i < 3000; i++) {
                        ExportFs.Node n = nodes.get(r.nextInt(nodes.size()));
                        OpenFiles.Access a = r.nextBoolean() ? OpenFiles.Access.READ : OpenFiles.Access.WRITE;
                        try (OpenFiles.Lease lease = files.open(n, a)) {
                            // still this file: not closed (EBADF), not closed and reused for another file
                            assertEquals(n.stat().ino(), Posix.fstat(lease.fd()).ino());
                            if (r.nextInt(100) == 0) {
                                Thread.sleep(1); // outlive a sweep now and then
                            }
                        }
                        if (r.nextInt(500) == 0) {
                            files.forget(n.stat());
                        }
                        // beyond the bound only while held: at most one per thread
                        assertTrue(files.size() <= 2 + 8, "kept: " + files.size());
                    }
                    return null;
                }));
            }
            for (Future<Void> f : done) {
                f.get();
            }
        }
        assertTrue(files.opens() > 12, "the bound made it open again and again: " + files.opens());
        assertTrue(files.reuses() > 0);
        OpenFiles.Lease held = files.open(nodes.get(0), OpenFiles.Access.READ);
        files.close();
        assertEquals(pathFds + 1, openIn(dir), "after close only the lent descriptor is left open");
        assertEquals(nodes.get(0).stat().ino(), Posix.fstat(held.fd()).ino());
        held.close();
        assertEquals(pathFds, openIn(dir), "given back after close: closed");
        nodes.forEach(ExportFs.Node::close);
    }
}
