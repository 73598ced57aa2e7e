package org.panamardma.rpcrdma.memory;

import java.util.concurrent.CompletableFuture;

/**
 * One chunk's segment as the server may address it during one call (RFC 8166 section 3.4.3: its handle), until
 * {@link #revoke()}: a memory window bound for the call ({@link MemoryWindows}) or a registration of its own
 * ({@link CallRegistrar#exposeForCall}). The one kind of remote access this module gives: what a client's call
 * exposes, for that call; a server holds none.
 */
public interface Exposure {
    /** @return the handle the chunk list advertises */
    int rkey();

    /**
     * Makes the segment unreachable for the server: the future completes (normally) once an access with
     * {@link #rkey()} fails, and only then may the memory be reused or handed back to a caller who may free it. It
     * fails only if the device refused to revoke (a deregistration that failed): the memory must then stay as it is.
     * Idempotent: every call returns the same future.
     */
    CompletableFuture<Void> revoke();

    /**
     * A registration made for one call (the client's per-call registration), revoked by deregistering it.
     *
     * @param deregistered runs once the deregistration succeeded
     */
    static Exposure registered(Registration r, Runnable deregistered) {
        return new Exposure() {
            private CompletableFuture<Void> revoked;

            @Override
            public int rkey() {
                return r.rkey();
            }

            @Override
            public synchronized CompletableFuture<Void> revoke() {
                if (revoked == null) {
                    revoked = new CompletableFuture<>();
                    try {
                        r.deregister(); // ibv_dereg_mr: the key is dead when it returns
                        deregistered.run();
                        revoked.complete(null);
                    } catch (RuntimeException e) {
                        revoked.completeExceptionally(e);
                    }
                }
                return revoked;
            }
        };
    }
}
