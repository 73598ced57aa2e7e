package org.panamardma.verbs.ffi;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The rdma-core release that brought a bound C item (a struct field, a constant, a function, or a whole struct) that
 * the oldest supported rdma-core lacks. Items without it are in every supported release. The symbols list
 * (native-headers) records it per line, the ABI check expects the item to be absent from older headers and present
 * from this release on, and the library never touches the item when the installed rdma-core is older.
 *
 * <p>Where it goes: on the constant, the method (function), or the class (a whole struct); for a member of a struct
 * layout, on the member's offset constant {@code <member>$OFFSET} in the struct's class (members below it inherit
 * it). A struct with such members also carries {@link Grew}. See native-headers/README.md, "Versions".
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.TYPE})
public @interface Since {
    /** The rdma-core major version that first has the item, e.g. 45 for {@code ibv_qp_ex.wr_flush}. */
    int value();

    /**
     * For an item of the kernel's rdma uapi headers ({@code <rdma/ib_user_verbs.h>}, which distributions install
     * from the kernel's headers, e.g. Debian's linux-libc-dev, not from rdma-core): the Linux release that brought
     * it, e.g. "6.2"; {@link #value()} is then the rdma-core release whose copy of those headers first has it.
     * Empty for rdma-core's own items.
     */
    String linux() default "";
}
