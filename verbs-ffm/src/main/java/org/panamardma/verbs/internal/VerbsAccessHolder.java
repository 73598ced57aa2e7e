package org.panamardma.verbs.internal;

import java.util.Objects;
import java.util.Set;
import org.panamardma.verbs.Context;

/**
 * Where the one {@link VerbsAccess} lives: installed by {@link Context}'s static initialiser into a
 * {@code static final} field (which not even reflection can set), handed out to the classes in {@link #USERS}.
 */
final class VerbsAccessHolder {
    /**
     * The classes that may get the implementation, by name and defined by this class's loader: as exact as the
     * classes themselves (a loader defines one class of a name; on the class path a package can be split, not a
     * class), without a reference from this package to the cm package above it, which would close a package cycle
     * (VerbsPackageCycleTest).
     */
    private static final Set<String> USERS =
            Set.of("org.panamardma.verbs.cm.CmId", "org.panamardma.verbs.cm.EventChannel");

    /** The implementation being installed: non-null only inside {@link #set}, while {@link Installed} initialises. */
    private static VerbsAccess offered;

    private VerbsAccessHolder() {}

    /** Initialised by the first {@link #set}: it keeps what was offered then, for good. */
    private static final class Installed {
        static final VerbsAccess ACCESS = offered;
    }

    static void set(Class<?> caller, VerbsAccess access) {
        if (caller != Context.class) {
            throw new IllegalCallerException(caller.getName() + " may not install the VerbsAccess implementation: "
                    + Context.class.getName() + " does, once");
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

    static VerbsAccess get(Class<?> caller) {
        if (!USERS.contains(caller.getName()) || caller.getClassLoader() != VerbsAccessHolder.class.getClassLoader()) {
            throw new IllegalCallerException(caller.getName() + " may not use VerbsAccess (package "
                    + VerbsAccess.class.getPackageName() + " is internal to verbs-ffm)");
        }
        try {
            // Context's static initialiser installs the implementation
            Class.forName(Context.class.getName(), true, Context.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError(e);
        }
        VerbsAccess access = Installed.ACCESS;
        if (access == null) {
            throw new IllegalStateException("the VerbsAccess implementation is not installed");
        }
        return access;
    }
}
