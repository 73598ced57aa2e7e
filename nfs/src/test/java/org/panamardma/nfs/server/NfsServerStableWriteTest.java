package org.panamardma.nfs.server;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.Nfs3Client;
import org.panamardma.nfs.StableHow;
import org.panamardma.nfs.WriteResult;

/**
 * WRITE's {@code stable_how} (RFC 1813 section 3.3.7) seen from outside the server: the kernel's page cache state of
 * the written file after each call ({@code cachestat(2)}, Linux 6.5), not the server's word. A FILE_SYNC or DATA_SYNC
 * WRITE leaves nothing of its range dirty or under writeback when it is answered; it syncs its own range only, as
 * knfsd's {@code nfsd_vfs_write} does (RWF_SYNC), not the pages UNSTABLE WRITEs left dirty elsewhere in the file,
 * which are COMMIT's; and COMMIT leaves the whole file clean.
 */
class NfsServerStableWriteTest {
    private static final int CHUNK = 256 << 10;
    /** The kernel's flusher may write dirty pages back at any moment: "still dirty" gets this many fresh tries. */
    private static final int TRIES = 5;

    @TempDir
    Path dir;

    ServerFixture fx;
    Nfs3Client nfs;
    final byte[] data = new byte[CHUNK];

    @BeforeEach
    void start() throws Exception {
        PageCache.requireAvailable();
        new Random(7).nextBytes(data);
        fx = ServerFixture.start(dir, ExportOptions.DEFAULTS);
        nfs = fx.client(ServerFixture.USER, ServerFixture.USER);
    }

    @AfterEach
    void stop() {
        if (fx != null) {
            fx.close();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = StableHow.class,
            names = {"FILE_SYNC", "DATA_SYNC"})
    void aStableWriteIsCleanWhenAnsweredAndLeavesTheFilesOtherDirtyPagesToCommit(StableHow how) throws Exception {
        for (int attempt = 1; ; attempt++) {
            String name = "f-" + how + "-" + attempt;
            FileHandle3 h = nfs.create(fx.root, name, 0644).handle();
            Path file = fx.export.resolve(name);
            nfs.write(h, 0, MemorySegment.ofArray(data), StableHow.UNSTABLE);
            if (PageCache.of(file, 0, CHUNK).dirty() == 0) {
                assertTrue(attempt < TRIES, "the flusher wrote UNSTABLE data back at once " + TRIES + " times");
                continue; // written back already: nothing to tell a whole-file sync from a ranged one
            }

            WriteResult w = nfs.write(h, 2L * CHUNK, MemorySegment.ofArray(data), how);
            assertEquals(how, w.committed());
            PageCache.State synced = PageCache.of(file, 2L * CHUNK, CHUNK);
            assertEquals(0, synced.dirty(), how + ": pages of its range still dirty when answered: " + synced);
            assertEquals(0, synced.writeback(), how + ": pages of its range still under writeback: " + synced);
            byte[] onDisk = Files.readAllBytes(file);
            assertEquals(3L * CHUNK, onDisk.length);
            assertArrayEquals(data, Arrays.copyOfRange(onDisk, 2 * CHUNK, 3 * CHUNK));

            if (PageCache.of(file, 0, CHUNK).dirty() > 0) {
                return; // the UNSTABLE range is left to COMMIT
            }
            if (attempt == TRIES) {
                fail(how + " wrote back the UNSTABLE data before it too, " + TRIES + " times of " + TRIES
                        + ": it synced the whole file, not its own range");
            }
        }
    }

    @Test
    void commitLeavesTheWholeFileClean() throws Exception {
        FileHandle3 h = nfs.create(fx.root, "f", 0644).handle();
        Path file = fx.export.resolve("f");
        for (int i = 0; i < 4; i++) {
            nfs.write(h, (long) i * CHUNK, MemorySegment.ofArray(data), StableHow.UNSTABLE);
        }
        nfs.commit(h, 0, 0);
        PageCache.State after = PageCache.of(file, 0, 4L * CHUNK);
        assertEquals(0, after.dirty(), "dirty after COMMIT: " + after);
        assertEquals(0, after.writeback(), "under writeback after COMMIT: " + after);
        assertTrue(after.cached() > 0, "the file's pages are gone from the cache, so nothing was seen: " + after);
    }

    /** {@code cachestat(2)} (Linux 6.5, system call 451 on every architecture): a file range's page cache state. */
    static final class PageCache {
        private static final long SYS_CACHESTAT = 451;
        private static final MemoryLayout CALL_STATE = Linker.Option.captureStateLayout();
        private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        private static final MethodHandle SYSCALL = Linker.nativeLinker()
                .downcallHandle(
                        Linker.nativeLinker().defaultLookup().find("syscall").orElseThrow(),
                        FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT),
                        Linker.Option.firstVariadicArg(1),
                        Linker.Option.captureCallState("errno"));
        private static final int ENOSYS = 38;

        /**
         * @param cached pages of the range in the page cache
         * @param dirty of them, dirty
         * @param writeback of them, being written back
         */
        record State(long cached, long dirty, long writeback) {}

        static void requireAvailable() throws Exception {
            try {
                of(Path.of("/proc/self/exe").toRealPath(), 0, 1);
            } catch (UnsupportedOperationException e) {
                assertTrue(!"true".equals(System.getenv("CI")), "CI: " + e.getMessage());
                Assumptions.abort(e.getMessage());
            }
        }

        static State of(Path file, long offset, long length) throws Exception {
            int fd = Posix.openat(Posix.AT_FDCWD, ExportFs.bytes(file.toString()), Posix.O_RDONLY, 0);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment state = arena.allocate(CALL_STATE);
                MemorySegment range = arena.allocate(16, 8); // struct cachestat_range { __u64 off, len; }
                range.set(JAVA_LONG, 0, offset);
                range.set(JAVA_LONG, 8, length);
                MemorySegment out = arena.allocate(40, 8); // struct cachestat: five __u64
                long r = (long) SYSCALL.invokeExact(state, SYS_CACHESTAT, fd, range, out, 0);
                if (r != 0) {
                    int errno = (int) ERRNO.get(state, 0L);
                    if (errno == ENOSYS) {
                        throw new UnsupportedOperationException(
                                "this kernel has no cachestat(2) (Linux 6.5): a stable WRITE's effect on the page"
                                        + " cache cannot be seen here");
                    }
                    throw new AssertionError("cachestat of " + file + ": errno " + errno);
                }
                return new State(out.get(JAVA_LONG, 0), out.get(JAVA_LONG, 8), out.get(JAVA_LONG, 16));
            } catch (Exception | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new AssertionError(t);
            } finally {
                Posix.close(fd);
            }
        }
    }
}
