package org.panamardma.verbs.internal;

import java.util.Objects;
import java.util.Set;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.EventChannel;

/**
 * Where the one {@link VerbsAccess} lives: installed by {@link Context}'s static initialiser into a
 * {@code static final} field (which not even reflection can set), handed out to the classes in {@link #USERS}.
 */
final class VerbsAccessHolder {
    /** The classes that may get the implementation (exact classes: on the class path a package can be split). */
    private static final Set<Class<?>> USERS = Set.of(CmId.class, EventChannel.class);

    /** The implementation being installed: non-null only inside {@link #set}, while {@link Installed} initialises. */
    private static VerbsAccess offered;

    private VerbsAccessHolder() {
    }

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
        if (!USERS.contains(caller)) {
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
