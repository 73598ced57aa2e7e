package org.panamardma.nfs.server;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * What {@code fstatvfs(3)} says of the file system a file is on (FSSTAT and PATHCONF answer from it), read from
 * {@code struct statvfs} of LP64 Linux ({@value Posix#STATVFS_SIZE} bytes, eleven 8-byte fields: LibcSymbolsTest
 * checks the size against the C headers).
 *
 * @param blockSize {@code f_frsize}
 * @param blocks {@code f_blocks}
 * @param free {@code f_bfree}
 * @param available {@code f_bavail}
 * @param files {@code f_files}
 * @param freeFiles {@code f_ffree}
 * @param availableFiles {@code f_favail}
 * @param nameMax {@code f_namemax}
 */
record StatVfs(
        long blockSize,
        long blocks,
        long free,
        long available,
        long files,
        long freeFiles,
        long availableFiles,
        long nameMax) {

    /** {@code fstatvfs(3)} of the file system {@code fd} is on. */
    static StatVfs of(int fd) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            MemorySegment buf = arena.allocate(Posix.STATVFS_SIZE, 8);
            Posix.check((int) Libc.FSTATVFS.invokeExact(state, fd, buf), state, "fstatvfs", "fd " + fd);
            long bsize = buf.get(JAVA_LONG, 0);
            long frsize = buf.get(JAVA_LONG, 8);
            return new StatVfs(
                    frsize != 0 ? frsize : bsize,
                    buf.get(JAVA_LONG, 16),
                    buf.get(JAVA_LONG, 24),
                    buf.get(JAVA_LONG, 32),
                    buf.get(JAVA_LONG, 40),
                    buf.get(JAVA_LONG, 48),
                    buf.get(JAVA_LONG, 56),
                    buf.get(JAVA_LONG, 80));
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw Posix.unexpected(t);
        }
    }
}
