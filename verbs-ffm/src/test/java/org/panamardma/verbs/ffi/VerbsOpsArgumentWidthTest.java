package org.panamardma.verbs.ffi;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The data-path handles take no argument narrower than 64 bits where HotSpot's x86-64 Java calling convention passes
 * it on the stack (after the target and five more): there a 32-bit argument cost a downcall about 5 ns
 * ({@code VerbsOps.JAVA_REGISTER_ARGUMENTS_AFTER_TARGET}; {@code ibv_wr_flush}'s {@code level}, which made FLUSH the
 * one request over the binding-cost target). The C signature the ABI check compares stays the header's.
 */
class VerbsOpsArgumentWidthTest {
    /** The target and the five arguments after it travel in registers ({@code j_rarg0..5}). */
    private static final int JAVA_REGISTER_ARGUMENTS = 6;

    @Test
    void noDataPathHandlePassesANarrowIntegerOnTheJavaStack() throws IllegalAccessException {
        List<String> narrow = new ArrayList<>();
        int checked = 0;
        for (Field f : VerbsOps.class.getDeclaredFields()) {
            if (f.getAnnotation(CallsThrough.class) == null) {
                continue;
            }
            MethodHandle h = (MethodHandle) f.get(null);
            checked++;
            Class<?>[] parameters = h.type().parameterArray();
            for (int i = JAVA_REGISTER_ARGUMENTS; i < parameters.length; i++) {
                Class<?> p = parameters[i];
                if (p == byte.class || p == short.class || p == int.class || p == char.class) {
                    narrow.add(f.getName() + " argument " + i + " is " + p);
                }
            }
        }
        assertTrue(checked > 20, "found only " + checked + " @CallsThrough handles");
        assertEquals(List.of(), narrow, "narrow integers passed on the stack of the Java calling convention");
    }

    @Test
    void wrFlushKeepsItsCSignatureForTheAbiCheckAndTakesItsLevelAsALong() {
        FunctionDescriptor c = VerbsOps.DESCRIPTORS.get(VerbsOps.WR_FLUSH);
        assertEquals(JAVA_BYTE, c.argumentLayouts().get(5), "uint8_t level, as verbs.h declares it");
        assertEquals(JAVA_BYTE, c.argumentLayouts().get(4), "uint8_t type, in a register: as declared");
        assertEquals(
                JAVA_LONG.carrier(),
                VerbsOps.WR_FLUSH.type().parameterType(6),
                "the handle's level: target, qp, rkey, addr, len, type, level");
        assertEquals(byte.class, VerbsOps.WR_FLUSH.type().parameterType(5));
    }
}
