package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Gives the calling thread credentials other than those the process opened its devices with, as the NFS server's
 * caller threads have after any call: its file-system uid changed and changed back, so that its credentials are
 * equal to the process's but no longer the same (the kernel's {@code ib_safe_file_access} compares them as
 * pointers). Needs root (CAP_SETUID), as the device suite runs.
 */
public final class ChangedCredentials {
    private static final MethodHandle SETFSUID = Linker.nativeLinker()
            .downcallHandle(
                    Linker.nativeLinker().defaultLookup().find("setfsuid").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));

    private ChangedCredentials() {}

    /** Changes the calling thread's file-system uid and back, asserting that both took (the thread keeps them). */
    public static void onThisThread() throws Throwable {
        int was = fsuid();
        int before = (int) SETFSUID.invokeExact(was == 1 ? 2 : 1);
        int changed = (int) SETFSUID.invokeExact(was);
        assertEquals(was, before);
        assertTrue(changed != was, "the file-system uid changed (setfsuid needs CAP_SETUID)");
        assertEquals(was, fsuid(), "and is back: the credentials are equal, not the same");
    }

    /** {@return the calling thread's file-system uid: {@code setfsuid(-1)} changes nothing and returns it} */
    private static int fsuid() throws Throwable {
        return (int) SETFSUID.invokeExact(-1);
    }
}
