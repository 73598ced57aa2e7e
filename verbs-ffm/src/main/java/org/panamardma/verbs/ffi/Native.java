package org.panamardma.verbs.ffi;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one {@link Linker} and the library lookups the bindings use. Handles are built once, in the static
 * initialisers of the header classes; nothing here runs on the data path.
 */
public final class Native {
    private Native() {}

    public static final Linker LINKER = Linker.nativeLinker();

    /** Captures errno right after a call, for the calls that report errors through it. */
    public static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    public static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CALL_STATE.varHandle(java.lang.foreign.MemoryLayout.PathElement.groupElement("errno"));

    public static final ValueLayout.OfLong C_POINTER_SIZE = ValueLayout.JAVA_LONG;

    /** Reads errno from a call-state segment filled by a downcall made with {@link #CAPTURE_ERRNO}. */
    public static int errno(MemorySegment callState) {
        return (int) ERRNO.get(callState, 0L);
    }

    /**
     * The descriptor of every downcall to an exported function, by C name, recorded also when the library or the
     * symbol is missing: the ABI check (native-headers, AbiTest) compares them with the C prototypes.
     */
    static final Map<String, FunctionDescriptor> DESCRIPTORS = new ConcurrentHashMap<>();

    /**
     * A shared library of rdma-core, looked up once. Loading it never throws: a library that cannot be loaded (not
     * installed, or native access not enabled for this module) has no lookup and a {@link #failure()}, every binding
     * in it is null, and the typed API refuses to start with that reason (RdmaCore). So no class initialiser of
     * the bindings fails, and nothing later meets a NoClassDefFoundError.
     */
    public static final class Library {
        final String name;
        final SymbolLookup lookup;
        final String failure;
        final boolean nativeAccessDenied;

        /** Loads the first of {@code candidates} the dynamic linker finds (dlopen), in the global arena. */
        public Library(String... candidates) {
            SymbolLookup found = null;
            boolean denied = false;
            StringBuilder why = new StringBuilder();
            for (String candidate : candidates) {
                try {
                    found = SymbolLookup.libraryLookup(candidate, Arena.global());
                    break;
                } catch (IllegalArgumentException e) {
                    why.append(why.isEmpty() ? "" : "; ").append(e.getMessage());
                } catch (RuntimeException e) {
                    // IllegalCallerException: native access is not enabled for this module
                    // (--illegal-native-access=deny)
                    why.append(why.isEmpty() ? "" : "; ").append(e);
                    denied = e instanceof IllegalCallerException;
                    break;
                }
            }
            this.name = candidates[0];
            this.lookup = found;
            this.failure = found == null ? why.toString() : null;
            this.nativeAccessDenied = denied;
        }

        /** Whether loading failed because native access is not enabled for the module of these bindings. */
        public boolean nativeAccessDenied() {
            return nativeAccessDenied;
        }

        /** The name the library is known by (its soname), e.g. {@code libibverbs.so.1}. */
        public String name() {
            return name;
        }

        /** Whether the dynamic linker found and loaded it. */
        public boolean isLoaded() {
            return lookup != null;
        }

        /** Why it could not be loaded (the dynamic linker's words), if it could not. */
        public Optional<String> failure() {
            return Optional.ofNullable(failure);
        }

        /** The address of an exported symbol, if the library is loaded and exports it. */
        public Optional<MemorySegment> find(String symbol) {
            return lookup == null ? Optional.empty() : lookup.find(symbol);
        }

        MethodHandle downcall(String function, FunctionDescriptor descriptor, Linker.Option... options) {
            DESCRIPTORS.put(function, descriptor);
            if (lookup == null) {
                return null;
            }
            Optional<MemorySegment> address = lookup.find(function);
            return address.map(a -> LINKER.downcallHandle(a, descriptor, options))
                    .orElse(null);
        }

        UnsatisfiedLinkError missing(String function) {
            return new UnsatisfiedLinkError(
                    lookup == null
                            ? "cannot load " + name + " (install rdma-core's libibverbs1 / librdmacm1): " + failure
                            : name + " has no symbol " + function + " (rdma-core too old?)");
        }
    }

    /** libibverbs: the verbs. */
    public static final Library IBVERBS = new Library("libibverbs.so.1", "libibverbs.so");

    /** librdmacm (rdma_cm); loaded on first use of {@code rdma_cma_h}. It pulls in libibverbs itself. */
    public static final Library RDMACM = new Library("librdmacm.so.1", "librdmacm.so");

    /** Fails with the reason the library or symbol is missing, or returns the handle. */
    static MethodHandle require(MethodHandle handle, Library library, String function) {
        if (handle == null) {
            throw library.missing(function);
        }
        return handle;
    }

    /** Whether libibverbs could be loaded at all. */
    public static boolean ibverbsLoaded() {
        return IBVERBS.lookup != null;
    }

    /** Whether librdmacm could be loaded at all. */
    public static boolean rdmacmLoaded() {
        return RDMACM.lookup != null;
    }

    /** Why librdmacm could not be loaded, if it could not. */
    public static Optional<String> rdmacmFailure() {
        return Optional.ofNullable(RDMACM.failure);
    }

    /** Why libibverbs could not be loaded, if it could not. */
    public static Optional<String> ibverbsFailure() {
        return Optional.ofNullable(IBVERBS.failure);
    }
}
