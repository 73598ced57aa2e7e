package org.panamardma.nfs.server;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The system calls that change a directory's entries: make, remove, rename and link names, and read a symbolic
 * link, each relative to a directory file descriptor the server opened beneath its export (see {@link Posix} for why
 * only the {@code *at} family). Each returns or throws {@link PosixException} with the errno.
 */
final class PosixNames {
    private PosixNames() {}

    static void mkdirat(int dirfd, String name, int mode) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            Posix.check(
                    (int) Libc.MKDIRAT.invokeExact(state, dirfd, Posix.path(arena, name), mode),
                    state,
                    "mkdirat",
                    name);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw Posix.unexpected(t);
        }
    }

    static void unlinkat(int dirfd, String name, int flags) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            Posix.check(
                    (int) Libc.UNLINKAT.invokeExact(state, dirfd, Posix.path(arena, name), flags),
                    state,
                    "unlinkat",
                    name);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw Posix.unexpected(t);
        }
    }

    static void renameat(int fromDir, String from, int toDir, String to) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            Posix.check(
                    (int) Libc.RENAMEAT.invokeExact(
                            state, fromDir, Posix.path(arena, from), toDir, Posix.path(arena, to)),
                    state,
                    "renameat",
                    from + " -> " + to);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw Posix.unexpected(t);
        }
    }

    static void symlinkat(String target, int dirfd, String name) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            Posix.check(
                    (int) Libc.SYMLINKAT.invokeExact(state, Posix.path(arena, target), dirfd, Posix.path(arena, name)),
                    state,
                    "symlinkat",
                    name);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw Posix.unexpected(t);
        }
    }

    /** {@code readlinkat(2)}: the link's target bytes, at most {@code max}. */
    static byte[] readlinkat(int dirfd, String name, int max) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            MemorySegment buf = arena.allocate(max + 1L);
            long n = Posix.check(
                    (long) Libc.READLINKAT.invokeExact(state, dirfd, Posix.path(arena, name), buf, max + 1L),
                    state,
                    "readlinkat",
                    name);
            if (n > max) {
                throw new PosixException(PosixException.ENAMETOOLONG, "readlinkat", name);
            }
            return buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw Posix.unexpected(t);
        }
    }

    static void linkat(int fromDir, String from, int toDir, String to, int flags) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            Posix.check(
                    (int) Libc.LINKAT.invokeExact(
                            state, fromDir, Posix.path(arena, from), toDir, Posix.path(arena, to), flags),
                    state,
                    "linkat",
                    to);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw Posix.unexpected(t);
        }
    }

    static void mknodat(int dirfd, String name, int mode, long dev) throws PosixException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(Libc.CALL_STATE);
            Posix.check(
                    (int) Libc.MKNODAT.invokeExact(state, dirfd, Posix.path(arena, name), mode, dev),
                    state,
                    "mknodat",
                    name);
        } catch (PosixException e) {
            throw e;
        } catch (Throwable t) {
            throw Posix.unexpected(t);
        }
    }
}
