package org.panamardma.verbs.ffi;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A struct that grew: its trailing members carry {@link Since}, so in an older rdma-core C's struct ends before them
 * (the ABI check expects C's size there to be the Java layout cut before the first newer member). Says why the
 * shorter struct is safe, which decides what code may do with the newer members on an older rdma-core.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Grew {
    Owner value();

    /** Who allocates the struct, and so what an older rdma-core does with the members it does not know. */
    enum Owner {
        /**
         * We allocate it at the Java size and pass that size to the library, which writes only the members it knows
         * (rdma-core's {@code __lib_query_port} zeroes the whole buffer first): a newer member reads as 0 on an older
         * rdma-core, so 0 must mean "not reported" to the code reading it.
         */
        CALLER,
        /**
         * The library allocates it (at its own size) and we read or call through its members: a newer member is
         * memory of something else on an older rdma-core and must never be read, let alone called, there.
         */
        LIBRARY
    }
}
