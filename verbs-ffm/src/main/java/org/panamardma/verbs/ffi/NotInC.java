package org.panamardma.verbs.ffi;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a public constant or method of this package that has no counterpart of the same name in the C headers
 * (a Java-side convenience). The ABI check (native-headers, {@code AbiTest}) skips what carries it; everything else
 * that looks like a binding (see native-headers/README.md) must be in the symbols list and must match C.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.TYPE})
public @interface NotInC {
    /** Why it is not in C, for the reader. */
    String value() default "";
}
