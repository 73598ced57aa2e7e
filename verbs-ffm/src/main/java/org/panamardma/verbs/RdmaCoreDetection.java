package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.panamardma.verbs.ffi.Native;

/**
 * How {@link RdmaCore} finds out which rdma-core release a loaded library comes from. Two sources, cross-checked:
 *
 * <ol>
 *   <li><b>The file name.</b> rdma-core's build names its libraries {@code <lib>.so.<SONAME>.<ABI>.<PACKAGE_VERSION>}:
 *   {@code rdma_library(ibverbs ... 1 1.14.${PACKAGE_VERSION} ...)} in libibverbs/CMakeLists.txt, set as the target's
 *   {@code VERSION} by {@code rdma_library} in buildlib/rdma_functions.cmake, and Documentation/versioning.md: "This
 *   version is encoded into the filename". rdma-core 44.0's libibverbs is {@code libibverbs.so.1.14.44.0}, its
 *   librdmacm {@code librdmacm.so.1.3.44.0}; 56.1's are {@code libibverbs.so.1.14.56.1} and
 *   {@code librdmacm.so.1.3.56.1} (Debian 12's and 13's packages). The loaded file is the mapping of
 *   {@code /proc/self/maps} that holds one of the library's symbols (the kernel shows the real file, symlinks
 *   resolved).</li>
 *   <li><b>The symbol versions</b> ({@code dlvsym}): a release's exported symbols carry the version nodes of
 *   libibverbs.map.in / librdmacm.map. Each probe below is a symbol that, at that node, exists exactly in releases
 *   {@code since..until}. Public nodes are never removed; the private node is renamed whenever the provider ABI
 *   ({@code IBVERBS_PABI_VERSION} in CMakeLists.txt) changes: 34 for releases 34 to 56, 57 for 57 and 58, 59 for 59
 *   to 63, 64 for 64.</li>
 * </ol>
 *
 * The symbol versions alone cannot tell 44 from 56 (both export exactly IBVERBS_1.0 .. IBVERBS_1.14 and
 * IBVERBS_PRIVATE_34), so the file name decides, and the symbol versions catch a file name that lies: a release the
 * nodes exclude, or a public node missing that the named release has. Where the file name says nothing (a library
 * copied as plain {@code libibverbs.so.1}) or lies, the version is the lower bound the nodes prove, marked inexact:
 * every feature of a later release is refused. That library is allowed (with a WARNING) if it has the newest public
 * node of rdma-core 44 ({@code IBVERBS_1.14}, since 36; {@code RDMACM_1.3}, since 31): every struct member the
 * bindings read outside a {@link RdmaCore.Feature} gate is the same from 36 to 56 ({@code git diff v36.0 v56.1 --
 * libibverbs/verbs.h librdmacm/rdma_cma.h}: members added at struct tails only, {@code ibv_qp_ex.wr_atomic_write}
 * in 44 (ATOMIC_WRITE), {@code wr_flush} in 45 (FLUSH), {@code ibv_port_attr.active_speed_ex} in 49).
 */
final class RdmaCoreDetection {
    private RdmaCoreDetection() {}

    static final int UNBOUNDED = Integer.MAX_VALUE;

    /** A symbol that exists at version {@code node} exactly in the rdma-core releases {@code since..until}. */
    record Probe(String symbol, String node, int since, int until) {}

    /**
     * One library: the prefix of its file name, a symbol to find its mapping by, its probes, the public node of
     * rdma-core {@value RdmaCore#OLDEST_SUPPORTED} whose presence admits a library of unknown release, and what to
     * install when it is missing.
     */
    record Spec(
            String library,
            String filePrefix,
            String publicNodePrefix,
            String anchor,
            List<Probe> probes,
            String requiredNode,
            String install) {
        int requiredNodeSince() {
            return probes.stream()
                    .filter(p -> p.node.equals(requiredNode))
                    .mapToInt(Probe::since)
                    .min()
                    .orElseThrow();
        }
    }

    /**
     * libibverbs' probes, from libibverbs/libibverbs.map.in of each release tag: IBVERBS_1.14 (v36.0,
     * ibv_query_qp_data_in_order), IBVERBS_1.15 (v59.0, ibv_reg_mr_ex), IBVERBS_1.16 (v62.0, ibv_query_port_speed),
     * IBVERBS_1.17 (v64.0, ibv_reg_buf_mr); private symbols at IBVERBS_PRIVATE_34: ibv_cmd_alloc_pd (34..56),
     * __verbs_log (added in v37.0), ibv_wr_opcode_str (v49.0), ibv_cmd_create_cq_ex2 (v53.0).
     */
    static final Spec IBVERBS = new Spec(
            "libibverbs",
            "libibverbs.so.",
            "IBVERBS_1.",
            "ibv_get_device_list",
            List.of(
                    new Probe("ibv_query_qp_data_in_order", "IBVERBS_1.14", 36, UNBOUNDED),
                    new Probe("ibv_reg_mr_ex", "IBVERBS_1.15", 59, UNBOUNDED),
                    new Probe("ibv_query_port_speed", "IBVERBS_1.16", 62, UNBOUNDED),
                    new Probe("ibv_reg_buf_mr", "IBVERBS_1.17", 64, UNBOUNDED),
                    new Probe("ibv_cmd_alloc_pd", "IBVERBS_PRIVATE_34", 34, 56),
                    new Probe("__verbs_log", "IBVERBS_PRIVATE_34", 37, 56),
                    new Probe("ibv_wr_opcode_str", "IBVERBS_PRIVATE_34", 49, 56),
                    new Probe("ibv_cmd_create_cq_ex2", "IBVERBS_PRIVATE_34", 53, 56),
                    new Probe("ibv_cmd_alloc_pd", "IBVERBS_PRIVATE_57", 57, 58),
                    new Probe("ibv_cmd_alloc_pd", "IBVERBS_PRIVATE_59", 59, 63),
                    new Probe("ibv_cmd_alloc_pd", "IBVERBS_PRIVATE_64", 64, 64)),
            "IBVERBS_1.14",
            "install rdma-core's verbs library and its device providers: on Debian and Ubuntu the packages libibverbs1 "
                    + "and ibverbs-providers (apt-get install libibverbs1 ibverbs-providers), on RHEL, Fedora and SUSE "
                    + "libibverbs (dnf install libibverbs)");

    /** librdmacm's probes, from librdmacm/librdmacm.map: RDMACM_1.3 (v31.0, rdma_get_remote_ece), 1.4 (v60.0). */
    static final Spec RDMACM = new Spec(
            "librdmacm",
            "librdmacm.so.",
            "RDMACM_1.",
            "rdma_create_event_channel",
            List.of(
                    new Probe("rdma_get_remote_ece", "RDMACM_1.3", 31, UNBOUNDED),
                    new Probe("rdma_resolve_addrinfo", "RDMACM_1.4", 60, UNBOUNDED)),
            "RDMACM_1.3",
            "install rdma-core's connection manager library: on Debian and Ubuntu the package librdmacm1 "
                    + "(apt-get install librdmacm1), on RHEL, Fedora and SUSE librdmacm (dnf install librdmacm)");

    /** What a file name says: ABI level and release, e.g. 14, 44, 0 for {@code libibverbs.so.1.14.44.0}. */
    record FileVersion(int abi, int major, int minor) {
        // SONAME 1, ABI level, PACKAGE_VERSION: "44.0", "44" or, unofficially, "44.vendor2" (versioning.md)
        private static final Pattern NAME =
                Pattern.compile("1\\.(\\d{1,4})\\.(\\d{1,4})(?:\\.(\\d{1,4}))?(?:[^0-9].*)?");

        /**
         * The version in {@code fileName} if it is {@code prefix} followed by {@code 1.<abi>.<release>}; empty for a
         * bare soname ({@code libibverbs.so.1}) and for a release number that is no upstream one (1000 or more, as
         * a vendor's date-like {@code 2410}).
         */
        static Optional<FileVersion> parse(String prefix, String fileName) {
            if (fileName == null || !fileName.startsWith(prefix)) {
                return Optional.empty();
            }
            Matcher m = NAME.matcher(fileName.substring(prefix.length()));
            if (!m.matches()) {
                return Optional.empty();
            }
            int major = Integer.parseInt(m.group(2));
            if (major >= 1000) {
                return Optional.empty();
            }
            return Optional.of(new FileVersion(
                    Integer.parseInt(m.group(1)), major, m.group(3) == null ? 0 : Integer.parseInt(m.group(3))));
        }
    }

    /** The release found (null if none could be), why it is not the file name's (if so), and why it is refused. */
    record Verdict(RdmaCore.Version version, Optional<String> warning, Optional<String> refusal) {}

    /**
     * Decides the release of {@code spec}'s library from its file name (null: not found) and the probes dlvsym found
     * (empty: dlvsym could not be asked), and whether it is supported ({@code oldest} and later).
     */
    static Verdict reconcile(Spec spec, String fileName, Optional<Set<Probe>> found, int oldest) {
        Optional<FileVersion> named = FileVersion.parse(spec.filePrefix, fileName);
        int lower = found.map(f -> f.stream().mapToInt(Probe::since).max().orElse(0))
                .orElse(0);
        int upper = found.map(f -> f.stream().mapToInt(Probe::until).min().orElse(UNBOUNDED))
                .orElse(UNBOUNDED);
        String nodes = found.map(f -> nodes(spec, f)).orElse("");
        RdmaCore.Version version;
        String warning = null;
        if (named.isPresent()) {
            FileVersion f = named.get();
            String mismatch = found.isPresent() ? mismatch(spec, f, found.get(), lower, upper) : null;
            if (mismatch == null) {
                version = new RdmaCore.Version(f.major, f.minor, true);
            } else {
                version = new RdmaCore.Version(lower, 0, false);
                warning = spec.library + "'s file " + fileName + " names rdma-core " + f.major + "." + f.minor
                        + ", but "
                        + mismatch + ": taken as rdma-core " + lower + " (the lower bound of its symbol versions), "
                        + "features of later releases refused";
            }
        } else if (found.isPresent()) {
            version = new RdmaCore.Version(lower, 0, false);
            warning = (fileName == null
                            ? spec.library + "'s file was not found in /proc/self/maps"
                            : spec.library + "'s file name " + fileName
                                    + " does not tell its rdma-core release (rdma-core " + "names it " + spec.filePrefix
                                    + "1.<ABI>.<release>)")
                    + "; its symbol versions (" + (nodes.isEmpty() ? "none known" : nodes) + ") prove rdma-core "
                    + lower + " or later: features of later releases are refused";
        } else {
            return new Verdict(
                    null,
                    Optional.empty(),
                    Optional.of("cannot tell which rdma-core release "
                            + spec.library + " is: "
                            + (fileName == null
                                    ? "its file was not found in /proc/self/maps"
                                    : "its file name " + fileName + " does not say")
                            + ", and its symbol versions cannot be read "
                            + "(no dlvsym)"));
        }
        String refusal = null;
        if (version.exact() && version.major() < oldest) {
            refusal = spec.library + " is rdma-core " + version + ", older than " + oldest + ", the oldest release "
                    + "supported (Debian 12's): install rdma-core " + oldest + " or later";
        } else if (!version.exact()
                && found.orElse(Set.of()).stream().noneMatch(p -> p.node.equals(spec.requiredNode))) {
            refusal = spec.library + (fileName == null ? "" : " (" + fileName + ")") + " has no symbol version "
                    + spec.requiredNode + ", which every rdma-core since " + spec.requiredNodeSince() + " has: it is "
                    + "older than rdma-core " + oldest + ", the oldest release supported (Debian 12's), or no "
                    + "rdma-core at all: install rdma-core " + oldest + " or later";
        }
        return new Verdict(version, Optional.ofNullable(warning), Optional.ofNullable(refusal));
    }

    /** Why the symbol versions contradict the file name's release, or null if they do not. */
    private static String mismatch(Spec spec, FileVersion f, Set<Probe> found, int lower, int upper) {
        if (f.major < lower || f.major > upper) {
            return "its symbol versions (" + nodes(spec, found) + ") belong to rdma-core " + lower
                    + (upper == UNBOUNDED ? " or later" : upper == lower ? "" : " to " + upper);
        }
        for (Probe p : spec.probes) {
            // public nodes stay; a release after a node's has it, whatever its provider ABI
            if (p.node.startsWith(spec.publicNodePrefix) && p.since <= f.major && !found.contains(p)) {
                return "it lacks symbol version " + p.node + " (" + p.symbol + "), which rdma-core " + p.since
                        + " and later have";
            }
        }
        return null;
    }

    /** The version nodes among {@code found}, in the order of the spec's probes: "IBVERBS_1.14, IBVERBS_PRIVATE_34". */
    static String nodes(Spec spec, Set<Probe> found) {
        return spec.probes.stream()
                .filter(found::contains)
                .map(Probe::node)
                .distinct()
                .collect(Collectors.joining(", "));
    }

    // ------------------------------------------------------------------------------------------- the process

    /** Everything found about one loaded library. */
    record Detected(
            Spec spec, Native.Library library, Optional<Path> file, Optional<Set<Probe>> found, Verdict verdict) {
        boolean loaded() {
            return library.isLoaded();
        }

        /** Why the library cannot be used at all, if so: missing, unreadable or too old. */
        Optional<String> refusal() {
            if (library.nativeAccessDenied()) {
                return Optional.of(library.name() + " cannot be loaded: native access is not enabled for panama-rdma "
                        + "(" + library.failure().orElse("?") + "): run java with --enable-native-access="
                        + "org.panamardma.verbs, or ALL-UNNAMED on the class path");
            }
            if (!library.isLoaded()) {
                return Optional.of(library.name() + " cannot be loaded ("
                        + library.failure().orElse("?") + "): " + spec.install);
            }
            return verdict.refusal();
        }

        /** For messages: {@code libibverbs rdma-core 44.0 (/usr/lib/.../libibverbs.so.1.14.44.0; IBVERBS_1.14, ...)}. */
        String describe() {
            if (!library.isLoaded()) {
                return spec.library + ": not loadable (" + library.failure().orElse("?") + ")";
            }
            String v = verdict.version() == null ? "rdma-core of unknown release" : "rdma-core " + verdict.version();
            String where = file.map(Path::toString).orElse("file not found");
            String symbols = found.map(f -> f.isEmpty() ? "no known symbol version" : nodes(spec, f))
                    .orElse("symbol versions not readable");
            return spec.library + " " + v + " (" + where + "; " + symbols + ")";
        }
    }

    /** Finds out what {@code library} (loaded, or not, by Native) is. Never throws. */
    static Detected detect(Spec spec, Native.Library library) {
        if (!library.isLoaded()) {
            return new Detected(
                    spec,
                    library,
                    Optional.empty(),
                    Optional.empty(),
                    new Verdict(null, Optional.empty(), Optional.empty()));
        }
        Optional<Path> file = Optional.empty();
        Optional<Set<Probe>> found = Optional.empty();
        try {
            Optional<MemorySegment> anchor = library.find(spec.anchor);
            if (anchor.isPresent()) {
                file = mappedFile(anchor.get().address());
            }
            found = probe(file.map(Path::toString).orElse(library.name()), spec.probes);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            // what could be found stays; reconcile decides with less
        }
        Verdict verdict = reconcile(
                spec, file.map(p -> p.getFileName().toString()).orElse(null), found, RdmaCore.OLDEST_SUPPORTED);
        return new Detected(spec, library, file, found, verdict);
    }

    /** The file mapped at {@code address}, from /proc/self/maps ("start-end perms offset dev inode path"). */
    static Optional<Path> mappedFile(long address) {
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of("/proc/self/maps"));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        for (String line : lines) {
            String[] f = line.trim().split("\\s+", 6);
            if (f.length < 6 || !f[5].startsWith("/")) {
                continue;
            }
            String[] range = f[0].split("-");
            long start = Long.parseUnsignedLong(range[0], 16);
            long end = Long.parseUnsignedLong(range[1], 16);
            if (Long.compareUnsigned(address, start) >= 0 && Long.compareUnsigned(address, end) < 0) {
                String path = f[5].endsWith(" (deleted)") ? f[5].substring(0, f[5].length() - 10) : f[5];
                return Optional.of(Path.of(path));
            }
        }
        return Optional.empty();
    }

    // <dlfcn.h> (glibc bits/dlfcn.h): RTLD_LAZY 0x1, RTLD_NOLOAD 0x4 (only find an object already loaded)
    private static final int RTLD_LAZY = 0x1;
    private static final int RTLD_NOLOAD = 0x4;

    /**
     * Which probes the loaded library {@code name} (a path or soname) exports at their version node, asked with
     * dlvsym on a handle of the already loaded object (dlopen with RTLD_NOLOAD: nothing is loaded, the reference is
     * given back with dlclose). Empty if the C library has no dlvsym or the object is not found.
     */
    static Optional<Set<Probe>> probe(String name, List<Probe> probes) {
        Linker linker = Native.LINKER;
        SymbolLookup libc = linker.defaultLookup();
        Optional<MemorySegment> dlopen = libc.find("dlopen");
        Optional<MemorySegment> dlvsym = libc.find("dlvsym");
        Optional<MemorySegment> dlclose = libc.find("dlclose");
        if (dlopen.isEmpty() || dlvsym.isEmpty() || dlclose.isEmpty()) {
            return Optional.empty();
        }
        MethodHandle open = linker.downcallHandle(dlopen.get(), FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        MethodHandle vsym =
                linker.downcallHandle(dlvsym.get(), FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        MethodHandle close = linker.downcallHandle(dlclose.get(), FunctionDescriptor.of(JAVA_INT, ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment handle = (MemorySegment) open.invokeExact(arena.allocateFrom(name), RTLD_LAZY | RTLD_NOLOAD);
            if (handle.address() == 0) {
                return Optional.empty();
            }
            try {
                Set<Probe> found = new LinkedHashSet<>();
                for (Probe p : probes) {
                    MemorySegment a = (MemorySegment)
                            vsym.invokeExact(handle, arena.allocateFrom(p.symbol), arena.allocateFrom(p.node));
                    if (a.address() != 0) {
                        found.add(p);
                    }
                }
                return Optional.of(found);
            } finally {
                int unused = (int) close.invokeExact(handle);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** The probes of {@code spec} a release {@code major} of upstream rdma-core exports (for tests). */
    static Set<Probe> expectedProbes(Spec spec, int major) {
        Set<Probe> out = new LinkedHashSet<>();
        for (Probe p : spec.probes) {
            if (p.since <= major && major <= p.until) {
                out.add(p);
            }
        }
        return out;
    }
}
