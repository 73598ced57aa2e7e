package org.panamardma.verbs.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import org.panamardma.verbs.RdmaCore;

/**
 * The stub provider of native-headers/stub: a libibverbs with one device, {@value #DEVICE}, that completes every
 * request at once (stub_provider.c says how), compiled here with gcc against rdma-core {@value
 * RdmaCore#BINDINGS_RELEASE}'s headers (the header set of native-headers/headers/sets that fetch.sh unpacked, as the
 * ABI check compiles) and loaded as this process's libibverbs. Then the library's public API opens {@value #DEVICE}
 * like any device, and its QueuePair and CompletionQueue call the stub's function pointers: what the binding-cost
 * benchmark (benchmarks) and the data-path allocation test measure, on the real CPU and without a device.
 *
 * <p><b>How, without LD_PRELOAD or a change to the library:</b> the stub is built with the soname
 * {@code libibverbs.so.1} and loaded by its path before anything touches {@link Native}. When Native then asks the
 * dynamic linker for {@code libibverbs.so.1}, glibc hands back the loaded object of that soname (dlopen matches a
 * name against the sonames of loaded objects before it searches the disk). RdmaCore reads the release from the file
 * name ({@code libibverbs.so.1.14.56.1}) and finds the symbol versions of that release (libibverbs.map), as for the
 * real library. So this must run before the first use of the verbs API in the JVM: a JVM of its own (the verbs-ffm
 * surefire execution {@code stub-provider}, a JMH fork). {@link #load()} refuses to go on where the real libibverbs
 * came first.
 *
 * <p>Not part of the library: it lives in verbs-ffm's tests (and its test jar, which the benchmarks use).
 */
public final class StubProvider {
    private StubProvider() {}

    /** The device the stub offers. */
    public static final String DEVICE = "stub0";

    // the operations of stub_bench.c's loop: enum stub_bench_op of stub_provider.h
    public static final int OP_SEND = 0;
    public static final int OP_WRITE = 1;
    public static final int OP_READ = 2;
    public static final int OP_FETCH_ADD = 3;
    public static final int OP_FLUSH = 4;
    public static final int OP_ATOMIC_WRITE = 5;

    private static final String RESOURCES = "native-headers/stub/";
    private static final List<String> FILES =
            List.of("stub_provider.c", "stub_bench.c", "stub_provider.h", "libibverbs.map");

    /** Why the stub cannot be built here (no gcc, no header set): a test skips with it, or fails where required. */
    public static final class UnavailableException extends Exception {
        UnavailableException(String message) {
            super(message);
        }
    }

    private static SymbolLookup lookup;
    private static Path file;

    /**
     * Builds the stub (once per JVM, into a private temporary folder) and loads it as libibverbs. Idempotent.
     *
     * @throws UnavailableException  without gcc or without the header set of rdma-core {@value
     *                               RdmaCore#BINDINGS_RELEASE} (the message says how to fetch it)
     * @throws IllegalStateException if this JVM had loaded the real libibverbs before
     */
    public static synchronized SymbolLookup load() throws UnavailableException, IOException, InterruptedException {
        if (lookup != null) {
            return lookup;
        }
        HeaderSets.SetLine set = headerSet();
        Path dir = Files.createTempDirectory("panama-rdma-stub-");
        dir.toFile().deleteOnExit();
        for (String f : FILES) {
            Path to = dir.resolve(f);
            copyResource(RESOURCES + f, to);
            to.toFile().deleteOnExit();
        }
        // named as rdma-core names its libibverbs (RdmaCoreDetection reads the release from this)
        Path library = dir.resolve("libibverbs.so.1.14." + set.release());
        String cc = System.getProperty("abi.cc", "gcc");
        Path include = set.root().resolve("usr/include");
        List<String> command = new ArrayList<>(List.of(
                cc,
                "-std=gnu11",
                "-O2",
                "-fPIC",
                "-shared",
                "-Wall",
                "-fdiagnostics-color=never",
                "-isystem",
                include.resolve(multiarch(cc, dir)).toString(),
                "-isystem",
                include.toString(),
                "-I",
                dir.toString(),
                "-Wl,-soname,libibverbs.so.1",
                "-Wl,--version-script=" + dir.resolve("libibverbs.map"),
                "-Wl,-z,defs",
                "-o",
                library.toString(),
                dir.resolve("stub_provider.c").toString(),
                dir.resolve("stub_bench.c").toString(),
                "-lpthread"));
        AbiProbe.Exec built = AbiProbe.exec(command, dir, 120);
        if (built.rc() != 0) {
            throw new IllegalStateException(
                    "the stub provider does not build (" + String.join(" ", command) + "):\n" + built.output());
        }
        library.toFile().deleteOnExit();
        SymbolLookup stub = SymbolLookup.libraryLookup(library, Arena.global());
        // Native's own lookup of libibverbs.so.1 must now be the stub: else the real one was loaded first
        if (Native.IBVERBS.find("stub_qp_by_number").isEmpty()) {
            throw new IllegalStateException("libibverbs was loaded in this JVM before the stub provider ("
                    + RdmaCore.ibverbsFile().map(Path::toString).orElse("?") + "): load the stub first, in a JVM of "
                    + "its own");
        }
        file = library;
        lookup = stub;
        return stub;
    }

    /** The loaded stub's file. */
    public static synchronized Path file() {
        if (file == null) {
            throw new IllegalStateException("the stub provider is not loaded");
        }
        return file;
    }

    /**
     * {@code int64_t stub_bench_post_poll(uint32_t qp_num, int path, int op, uint32_t lkey, uint64_t addr,
     * uint32_t length, uint64_t remote_addr, uint32_t rkey, struct ibv_wc *wc, int capacity, int64_t n)} of
     * stub_bench.c: {@code n} post+poll rounds in C on the QP numbered {@code qp_num}. Ops: {@link #OP_SEND} ...;
     * paths: the ordinal of {@code StubLoopback.Path} (enum stub_bench_path).
     */
    public static MethodHandle benchPostPoll() throws UnavailableException, IOException, InterruptedException {
        MemorySegment fn = load().find("stub_bench_post_poll").orElseThrow();
        return Native.LINKER.downcallHandle(
                fn,
                FunctionDescriptor.of(
                        JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT,
                        ADDRESS, JAVA_INT, JAVA_LONG));
    }

    /**
     * {@code int64_t stub_bench_message_rate(uint32_t qp_num, int path, uint32_t lkey, uint64_t addr,
     * uint64_t remote_addr, uint32_t rkey, struct ibv_wc *wc, int capacity, int batch, int64_t n)} of stub_bench.c:
     * {@code n} batches of {@code batch} 1-byte RDMA WRITEs, the last of each signaled, and the poll of its completion.
     */
    public static MethodHandle benchMessageRate() throws UnavailableException, IOException, InterruptedException {
        MemorySegment fn = load().find("stub_bench_message_rate").orElseThrow();
        return Native.LINKER.downcallHandle(
                fn,
                FunctionDescriptor.of(
                        JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_INT, ADDRESS, JAVA_INT,
                        JAVA_INT, JAVA_LONG));
    }

    /**
     * Callgrind's CALLGRIND_ZERO_STATS (stub_callgrind_zero): false where the stub was built without valgrind's
     * headers. Does nothing unless the JVM runs under callgrind.
     */
    public static boolean callgrindZero() throws UnavailableException, IOException, InterruptedException {
        MemorySegment fn = load().find("stub_callgrind_zero").orElseThrow();
        try {
            return (int) Native.LINKER
                            .downcallHandle(fn, FunctionDescriptor.of(JAVA_INT))
                            .invokeExact()
                    != 0;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Callgrind's CALLGRIND_DUMP_STATS_AT(why) (stub_callgrind_dump): a profile part named {@code why}. */
    public static void callgrindDump(String why) throws UnavailableException, IOException, InterruptedException {
        MemorySegment fn = load().find("stub_callgrind_dump").orElseThrow();
        try (Arena arena = Arena.ofConfined()) {
            int ignored = (int) Native.LINKER
                    .downcallHandle(fn, FunctionDescriptor.of(JAVA_INT, ADDRESS))
                    .invokeExact(arena.allocateFrom(why));
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * How often the stub's post_send, ibv_wr_start, poll_cq and ibv_start_poll have been called in this process, in
     * that order (stub_call_counts): which calls the library makes.
     */
    public static long[] callCounts() throws UnavailableException, IOException, InterruptedException {
        MemorySegment fn = load().find("stub_call_counts").orElseThrow();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment counts = arena.allocate(JAVA_LONG, 4);
            Native.LINKER.downcallHandle(fn, FunctionDescriptor.ofVoid(ADDRESS)).invokeExact(counts);
            return counts.toArray(JAVA_LONG);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** The header set of the release the bindings follow (the stub's structs must be that release's). */
    private static HeaderSets.SetLine headerSet() throws IOException, UnavailableException {
        String wanted = String.valueOf(RdmaCore.BINDINGS_RELEASE);
        HeaderSets.SetLine set = HeaderSets.sets().stream()
                .filter(s -> s.release().equals(wanted) || s.release().startsWith(wanted + "."))
                .findFirst()
                .orElseThrow(() -> new AssertionError(HeaderSets.SETS + " has no set of rdma-core " + wanted));
        if (!Files.isRegularFile(set.root().resolve("MANIFEST"))) {
            throw new UnavailableException("the stub provider is compiled against the header set " + set.name()
                    + " (rdma-core " + set.version() + "), not found in " + set.root() + ": fetch it once with "
                    + "native-headers/headers/fetch.sh " + set.name() + " (needs a Debian mirror)");
        }
        return set;
    }

    private static String multiarch(String cc, Path dir) throws InterruptedException, UnavailableException {
        try {
            AbiProbe.Exec m = AbiProbe.exec(List.of(cc, "-print-multiarch"), dir, 60);
            String triplet = m.output().trim();
            if (m.rc() != 0 || triplet.isEmpty()) {
                throw new UnavailableException("the stub provider needs a C compiler that knows its multiarch "
                        + "triplet (" + cc + " -print-multiarch): " + m.output());
            }
            return triplet;
        } catch (IOException e) {
            throw new UnavailableException("the stub provider needs a C compiler (" + cc + "): " + e.getMessage());
        }
    }

    private static void copyResource(String resource, Path to) throws IOException {
        try (InputStream in = StubProvider.class.getClassLoader().getResourceAsStream(resource)) {
            if (in != null) {
                Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
                return;
            }
        }
        // the work tree (an IDE run without the native-headers jar)
        Path root = SymbolsList.sourceFile()
                .map(p -> p.getParent().getParent().getParent())
                .orElseThrow(() -> new AssertionError(resource + " is not on the classpath (native-headers artifact)"));
        Files.copy(root.resolve(resource), to, StandardCopyOption.REPLACE_EXISTING);
    }
}
