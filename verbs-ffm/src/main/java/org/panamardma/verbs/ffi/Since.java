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
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.TYPE})
public @interface Since {
    /** The rdma-core major version that first has the item, e.g. 45 for {@code ibv_qp_ex.wr_flush}. */
    int value();
}
