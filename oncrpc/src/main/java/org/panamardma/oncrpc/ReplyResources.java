package org.panamardma.oncrpc;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resources a procedure's results point into until the transport has sent the reply: the memory of a READ's data,
 * for instance, which a transport reads after the procedure has returned (an RPC-over-RDMA transport RDMA-Writes it
 * into the client's Write chunk; TCP writes it to the socket without a copy). The transports of this library
 * ({@link org.panamardma.oncrpc.tcp.TcpRpcServer} and the RPC-over-RDMA server) run each call {@link #during} a
 * scope and close what the procedure handed over with {@link #holdUntilSent} once the reply, with every byte
 * placed out of band, has left; whatever the outcome (an error reply in place of the results included).
 *
 * <p>A procedure run outside such a scope (a transport that does not offer it, or a test calling
 * {@link RpcDispatcher#dispatch} directly) sees {@link #available()} false and must keep its results in memory the
 * garbage collector owns.
 */
public final class ReplyResources {
    private static final Logger LOG = LoggerFactory.getLogger(ReplyResources.class);
    private static final ScopedValue<ReplyResources> CURRENT = ScopedValue.newInstance();

    /** One call, one thread: no locking. */
    private final List<AutoCloseable> held = new ArrayList<>(2);

    private ReplyResources() {}

    /** {@return whether the calling procedure runs inside a transport's scope, so {@link #holdUntilSent} works} */
    public static boolean available() {
        return CURRENT.isBound();
    }

    /**
     * Hands {@code resource} to the transport, which closes it after sending the reply.
     *
     * @param resource closed once the reply has been sent or has failed; on the transport's thread, so its close must
     *        not block long
     * @throws IllegalStateException outside a transport's scope ({@link #available()} false)
     */
    public static void holdUntilSent(AutoCloseable resource) {
        Objects.requireNonNull(resource, "resource");
        if (!CURRENT.isBound()) {
            throw new IllegalStateException("no transport scope: the procedure was not run by a transport");
        }
        CURRENT.get().held.add(resource);
    }

    /**
     * Runs {@code call} (dispatching a call and sending its reply) in a new scope, then closes what was held in it,
     * in reverse order; a resource failing to close is logged, the others are still closed.
     *
     * @param <R> the result type of {@code call}
     * @param <X> the exception {@code call} may throw
     * @param call the dispatch and send of one call
     * @return what {@code call} returned
     * @throws X what {@code call} threw, after the held resources have been closed
     */
    public static <R, X extends Throwable> R during(ScopedValue.CallableOp<? extends R, X> call) throws X {
        ReplyResources scope = new ReplyResources();
        try {
            return ScopedValue.where(CURRENT, scope).call(call);
        } finally {
            scope.release();
        }
    }

    private void release() {
        for (int i = held.size() - 1; i >= 0; i--) {
            try {
                held.get(i).close();
            } catch (Exception e) {
                LOG.warn("releasing a reply's resource", e);
            }
        }
        held.clear();
    }
}
