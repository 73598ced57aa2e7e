package org.panamardma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.Context;

/**
 * The VerbsAccess hole stays closed on the class path too: this test sits in VerbsAccess's own package (and, on the
 * module path, in its module), nearer than any user can get, and still can neither replace the implementation nor
 * obtain it.
 */
class VerbsAccessTest {

    /** An implementation that would hand out whatever its author wants; it must never be installed. */
    private static VerbsAccess<?, ?, ?, ?, ?, ?, ?> impostor() {
        return (VerbsAccess<?, ?, ?, ?, ?, ?, ?>) Proxy.newProxyInstance(
                VerbsAccess.class.getClassLoader(), new Class<?>[] {VerbsAccess.class}, (proxy, method, args) -> {
                    throw new AssertionError("the impostor was called: " + method.getName());
                });
    }

    /** What Context installed, read the way only code inside verbs-ffm can (deep reflection on its own module). */
    private static VerbsAccess<?, ?, ?, ?, ?, ?, ?> installed() throws ReflectiveOperationException {
        Class.forName(Context.class.getName(), true, Context.class.getClassLoader());
        Field access =
                Class.forName(VerbsAccessHolder.class.getName() + "$Installed").getDeclaredField("ACCESS");
        access.setAccessible(true);
        return (VerbsAccess<?, ?, ?, ?, ?, ?, ?>) access.get(null);
    }

    @Test
    void noCallerButContextInstallsIt_andOnlyCmVerbsGetsIt() throws Exception {
        VerbsAccess<?, ?, ?, ?, ?, ?, ?> real = installed();
        assertNotNull(real, "Context's static initialiser installed it");
        assertEquals("org.panamardma.verbs.VerbsAccessImpl", real.getClass().getName());

        IllegalCallerException set = assertThrows(IllegalCallerException.class, () -> VerbsAccess.set(impostor()));
        assertTrue(set.getMessage().contains(VerbsAccessTest.class.getName()), set.getMessage());
        assertThrows(IllegalCallerException.class, () -> VerbsAccess.set(real), "not even the real one, again");
        IllegalCallerException get = assertThrows(IllegalCallerException.class, () -> VerbsAccess.get());
        assertTrue(get.getMessage().contains("may not use VerbsAccess"), get.getMessage());

        // reflection is a caller too: the stack walk sees through Method.invoke
        Method setter = VerbsAccess.class.getMethod("set", VerbsAccess.class);
        InvocationTargetException viaReflection =
                assertThrows(InvocationTargetException.class, () -> setter.invoke(null, impostor()));
        assertInstanceOf(IllegalCallerException.class, viaReflection.getCause());
        Method getter = VerbsAccess.class.getMethod("get");
        assertInstanceOf(
                IllegalCallerException.class,
                assertThrows(InvocationTargetException.class, () -> getter.invoke(null))
                        .getCause());

        // the installed implementation lives in a static final field: reflection cannot replace it
        Field access =
                Class.forName(VerbsAccessHolder.class.getName() + "$Installed").getDeclaredField("ACCESS");
        access.setAccessible(true);
        assertThrows(IllegalAccessException.class, () -> access.set(null, impostor()));

        assertSame(real, installed(), "still the one Context installed");
        Field cmsAccess = Class.forName("org.panamardma.verbs.cm.CmVerbs").getDeclaredField("VERBS");
        cmsAccess.setAccessible(true);
        assertSame(real, cmsAccess.get(null), "CmVerbs, its one user (the cm package's hold on it), got the real one");
    }

    @Test
    void cmNamesTheTypesTheImplementationBinds() throws Exception {
        // CmVerbs casts the bridge to its parameterisation unchecked: sound only while both name the same types
        List<Type> implemented = null;
        for (Type t : Class.forName("org.panamardma.verbs.VerbsAccessImpl").getGenericInterfaces()) {
            if (t instanceof ParameterizedType p && p.getRawType() == VerbsAccess.class) {
                implemented = List.of(p.getActualTypeArguments());
            }
        }
        assertNotNull(implemented, "VerbsAccessImpl implements VerbsAccess<...>");
        Type used = Class.forName("org.panamardma.verbs.cm.CmVerbs")
                .getDeclaredField("VERBS")
                .getGenericType();
        assertEquals(implemented, List.of(((ParameterizedType) used).getActualTypeArguments()));
        assertEquals(Context.class, implemented.get(0));
    }
}
