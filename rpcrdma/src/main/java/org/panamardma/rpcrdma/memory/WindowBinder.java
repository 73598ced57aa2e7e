package org.panamardma.rpcrdma.memory;

import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.MemoryWindow;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.connection.RdmaConnection;

/**
 * What the client's memory windows ({@link MemoryWindows}) need of a connection: type 2 windows in its protection
 * domain, bound and invalidated on its queue pair. Kept behind this interface so that the window logic is tested
 * on the host without a device.
 */
public interface WindowBinder {
    /**
     * @return a new, free type 2 window ({@code ibv_alloc_mw})
     * @throws RdmaException if the device refused
     */
    Window allocate() throws RdmaException;

    /** One window. */
    interface Window {
        /** @return its current key */
        int rkey();

        /** @return the key its next bind takes (the key byte bumped: {@code ibv_inc_rkey}) */
        int nextRkey();

        /**
         * Binds the window under {@code newRkey} to {@code segment}, which lies in {@code region}, with
         * {@code access}; the future completes when the bind executed. Requests posted after it execute after it.
         */
        CompletableFuture<Void> bind(int newRkey, Registration region, MemorySegment segment, Set<Access> access);

        /** {@code IBV_WR_LOCAL_INV}: the future completes when the server can no longer use the key. */
        CompletableFuture<Void> invalidate();

        /** The server's Send With Invalidate named {@code rkey}: whether it was this window's (now free). */
        boolean invalidatedByPeer(int rkey);

        /** {@code ibv_dealloc_mw}: revokes at once, whatever the queue pair's state. */
        void close();

        /** @return whether {@link #close()} ran */
        boolean isClosed();
    }

    /** Windows of {@code connection}'s protection domain, bound and invalidated through its queue pair. */
    /**
     * @param connection the client's connection
     * @return windows of its protection domain, bound and invalidated through its queue pair
     */
    static WindowBinder of(RdmaConnection connection) {
        return () -> {
            MemoryWindow mw = connection.protectionDomain().allocateMemoryWindow();
            return new Window() {
                @Override
                public int rkey() {
                    return mw.rkey();
                }

                @Override
                public int nextRkey() {
                    return mw.nextRkey();
                }

                @Override
                public CompletableFuture<Void> bind(
                        int newRkey, Registration region, MemorySegment segment, Set<Access> access) {
                    Registration.VerbsRegistration r = (Registration.VerbsRegistration) region;
                    return connection.bindMemoryWindow(
                            mw,
                            newRkey,
                            r.region(),
                            segment.address() - r.region().address(),
                            segment.byteSize(),
                            access);
                }

                @Override
                public CompletableFuture<Void> invalidate() {
                    return connection.invalidate(mw);
                }

                @Override
                public boolean invalidatedByPeer(int rkey) {
                    return mw.invalidatedByPeer(rkey);
                }

                @Override
                public void close() {
                    mw.close();
                }

                @Override
                public boolean isClosed() {
                    return mw.isClosed();
                }
            };
        };
    }
}
