package org.panamardma.nfs.server;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * The server's binding to the C library, in one place as verbs-ffm's {@code ffi} package is in jextract's shape: a
 * downcall handle per function, built once. {@link Posix} (the file system calls) and {@link ThreadCredentials} (a
 * thread's ids, groups and capabilities) wrap them in typed calls. Every function named here is listed in
 * native-headers/symbols/libc.symbols, which {@code LibcSymbolsTest} keeps true in both directions, and checks
 * against the C library and its headers (the functions exported, the constants' values, the structs' sizes).
 */
final class Libc {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    /** The call state {@code errno} is captured into, right after the call (before the JVM can change it). */
    static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();

    private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    static final MethodHandle OPENAT2 = withErrno(
            "syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG),
            Linker.Option.firstVariadicArg(1));
    static final MethodHandle FACCESSAT2 = withErrno(
            "syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
            Linker.Option.firstVariadicArg(1));
    static final MethodHandle OPENAT = withErrno(
            "openat",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT),
            Linker.Option.firstVariadicArg(3));
    static final MethodHandle CLOSE = withErrno("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle STATX =
            withErrno("statx", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));
    static final MethodHandle PREAD =
            withErrno("pread64", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
    static final MethodHandle PWRITEV2 =
            withErrno("pwritev2", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    static final MethodHandle FSYNC = withErrno("fsync", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle SYNCFS = withErrno("syncfs", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle IOCTL = withErrno(
            "ioctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS), Linker.Option.firstVariadicArg(2));
    static final MethodHandle FTRUNCATE =
            withErrno("ftruncate64", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG));
    static final MethodHandle LSEEK =
            withErrno("lseek64", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
    static final MethodHandle GETDENTS64 =
            withErrno("getdents64", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    static final MethodHandle MKDIRAT =
            withErrno("mkdirat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle UNLINKAT =
            withErrno("unlinkat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle RENAMEAT =
            withErrno("renameat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle SYMLINKAT =
            withErrno("symlinkat", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    static final MethodHandle READLINKAT =
            withErrno("readlinkat", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    static final MethodHandle LINKAT =
            withErrno("linkat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, JAVA_INT));
    static final MethodHandle MKNODAT =
            withErrno("mknodat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
    static final MethodHandle FCHOWNAT =
            withErrno("fchownat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, JAVA_INT));
    static final MethodHandle FCHMODAT =
            withErrno("fchmodat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
    static final MethodHandle UTIMENSAT =
            withErrno("utimensat", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    static final MethodHandle FSTATVFS = withErrno("fstatvfs", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    static final MethodHandle GETEUID = plain("geteuid", FunctionDescriptor.of(JAVA_INT));
    static final MethodHandle SETFSUID = plain("setfsuid", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle SETFSGID = plain("setfsgid", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle GETEGID = plain("getegid", FunctionDescriptor.of(JAVA_INT));
    static final MethodHandle UMASK = plain("umask", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    static final MethodHandle SYSCALL_SETGROUPS = withErrno(
            "syscall",
            FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS),
            Linker.Option.firstVariadicArg(1));
    static final MethodHandle GETGROUPS = withErrno("getgroups", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
    static final MethodHandle CAPGET = withErrno("capget", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle CAPSET = withErrno("capset", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
    static final MethodHandle UNSHARE = withErrno("unshare", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private Libc() {}

    /** {@return the {@code errno} a call with errno capture left in {@code state}} */
    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** A function whose failures need no errno (or that cannot fail). */
    private static MethodHandle plain(String name, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol(name), descriptor);
    }

    /** A function that reports failure in {@code errno}: the handle's first argument is the call state. */
    private static MethodHandle withErrno(String name, FunctionDescriptor descriptor, Linker.Option... extra) {
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = CAPTURE_ERRNO;
        System.arraycopy(extra, 0, options, 1, extra.length);
        return LINKER.downcallHandle(symbol(name), descriptor, options);
    }

    private static MemorySegment symbol(String name) {
        return LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("the C library has no " + name));
    }
}
