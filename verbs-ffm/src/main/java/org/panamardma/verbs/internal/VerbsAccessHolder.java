package org.panamardma.verbs.internal;

import java.util.Objects;

/**
 * Where the one {@link VerbsAccess} lives: installed by {@code Context}'s static initialiser into a
 * {@code static final} field (which not even reflection can set), handed out to {@link #USER} only.
 */
final class VerbsAccessHolder {
    /**
     * The one class that installs the implementation and the one that may get it, by name and defined by this
     * class's loader: as exact as the classes themselves (a loader defines one class of a name; on the class path a
     * package can be split, not a class), without a reference from this package to the verbs or cm packages above it,
     * which would close a package cycle (VerbsPackageCycleTest).
     */
    private static final String INSTALLER = "org.panamardma.verbs.Context";

    private static final String USER = "org.panamardma.verbs.cm.CmVerbs";

    /** The implementation being installed: non-null only inside {@link #set}, while {@link Installed} initialises. */
    private static VerbsAccess<?, ?, ?, ?, ?, ?, ?> offered;

    private VerbsAccessHolder() {}

    /** Initialised by the first {@link #set}: it keeps what was offered then, for good. */
    private static final class Installed {
        static final VerbsAccess<?, ?, ?, ?, ?, ?, ?> ACCESS = offered;
    }

    static void set(Class<?> caller, VerbsAccess<?, ?, ?, ?, ?, ?, ?> access) {
        if (!isOurs(caller, INSTALLER)) {
            throw new IllegalCallerException(
                    caller.getName() + " may not install the VerbsAccess implementation: " + INSTALLER + " does, once");
        }
        Objects.requireNonNull(access, "access");
        synchronized (VerbsAccessHolder.class) {
            offered = access;
            try {
                if (Installed.ACCESS != access) {
                    throw new IllegalStateException("the VerbsAccess implementation is installed already");
                }
            } finally {
                offered = null;
            }
        }
    }

    static VerbsAccess<?, ?, ?, ?, ?, ?, ?> get(Class<?> caller) {
        if (!isOurs(caller, USER)) {
            throw new IllegalCallerException(caller.getName() + " may not use VerbsAccess (package "
                    + VerbsAccess.class.getPackageName() + " is internal to verbs-ffm)");
        }
        try {
            // Context's static initialiser installs the implementation
            Class.forName(INSTALLER, true, VerbsAccessHolder.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
        VerbsAccess<?, ?, ?, ?, ?, ?, ?> access = Installed.ACCESS;
        if (access == null) {
            throw new IllegalStateException("the VerbsAccess implementation is not installed");
        }
        return access;
    }

    /** Whether the caller is the class of that name of this module (defined by this class's loader). */
    private static boolean isOurs(Class<?> caller, String name) {
        return caller.getName().equals(name) && caller.getClassLoader() == VerbsAccessHolder.class.getClassLoader();
    }
}
