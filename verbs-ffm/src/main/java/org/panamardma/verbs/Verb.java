package org.panamardma.verbs;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The C verb (libibverbs or librdmacm) a public method is the Java API of: calling the method calls the verb, or
 * returns what the verb reported when the object was made ({@link Context#attributes()}). Repeated where one method
 * reaches several (a post on the extended send path calls {@code ibv_wr_rdma_write}, a post on the legacy one
 * {@code ibv_post_send}). On a resource class it names the verb its {@link NativeResource#close() close()} calls
 * ({@code ibv_destroy_qp} on {@link QueuePair}).
 *
 * <p>The build reads these: every function the bindings call is named here or listed as internal with a reason,
 * every verb named here is called by a test, and {@code docs/verbs.md} (verb, method, tests) is generated from them
 * ({@code VerbMapTest}). A {@code static inline} verb of verbs.h is named as in C ({@code ibv_post_send},
 * {@code ibv_wr_atomic_cmp_swp}, {@code ibv_wc_read_opcode}), not as the function-pointer member it calls through.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.TYPE})
@Repeatable(Verb.List.class)
public @interface Verb {
    /**
     * The C function's name.
     *
     * @return the name, e.g. {@code "ibv_post_send"}
     */
    String value();

    /** The container of repeated {@link Verb}s. */
    @Documented
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.TYPE})
    @interface List {
        /**
         * The verbs.
         *
         * @return the verbs, in the order written
         */
        Verb[] value();
    }
}
