package org.panamardma.verbs.ffi;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a downcall handle of {@link VerbsOps}: the C function-pointer members it calls through, as
 * {@code "struct.member"} (e.g. {@code "ibv_qp_ex.wr_rdma_write"}). The ABI check compares the handle's
 * {@link java.lang.foreign.FunctionDescriptor} with the C type of each member (return and parameters: count,
 * width, pointer or integer or floating).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface CallsThrough {
    String[] value();
}
