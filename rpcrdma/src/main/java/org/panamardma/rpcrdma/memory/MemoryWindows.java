package org.panamardma.rpcrdma.memory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.trusted.Callbacks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The type 2 memory windows of one client (the client's {@code ChunkExposure.MEMORY_WINDOWS}): each chunk segment of a call gets
 * a free window, bound over exactly the segment with the chunk's right under the window's next key, and invalidated
 * when the call ends; the window is then free for another call, under another key. As in Linux's FRWR
 * (frwr_map, frwr_unmap_async in net/sunrpc/xprtrdma/frwr_ops.c), but with windows over regions registered once,
 * since user space has no fast registration.
 *
 * <p>A window is revoked by {@code IBV_WR_LOCAL_INV}, or, if the server invalidated it with its Send With Invalidate
 * ({@link #invalidatedByPeer}), not at all: invalidating a free window again is an error to the device (and crashes
 * rxe's kernel). A window whose invalidation failed (the queue pair is in error) is deallocated instead, which
 * revokes it whatever the queue pair's state; so is every window when the connection is lost ({@link #closeAll()}).
 * Windows are allocated as calls need them and kept: as many as the most chunk segments ever in calls at once.
 *
 * <p>Thread-safe.
 */
public final class MemoryWindows {
    private static final Logger LOG = LoggerFactory.getLogger(MemoryWindows.class);

    private final String name;
    private final WindowBinder binder;
    // guarded by this
    private final ArrayDeque<WindowBinder.Window> free = new ArrayDeque<>();
    /** Bound windows by their key: what the server's Send With Invalidate names. Guarded by this. */
    private final Map<Integer, Bound> bound = new HashMap<>();

    private long allocated;
    private long binds;
    private boolean closed;

    /**
     * @param name names the client in messages
     * @param binder allocates, binds and invalidates the windows (the connection's, or a host test's)
     */
    public MemoryWindows(String name, WindowBinder binder) {
        this.name = name;
        this.binder = binder;
    }

    /**
     * Binds a free window over {@code segment}, which lies in {@code region} (registered with MW_BIND and no remote
     * right), with {@code access}'s one remote right.
     */
    public Exposure bind(Registration region, MemorySegment segment, ChunkAccess access) throws RdmaException {
        WindowBinder.Window w;
        synchronized (this) {
            checkOpen();
            w = free.poll();
        }
        if (w == null) {
            w = binder.allocate();
            synchronized (this) {
                allocated++;
                if (closed) {
                    w.close();
                    checkOpen();
                }
            }
        }
        int key = w.nextRkey();
        Bound b = new Bound(w, key);
        synchronized (this) {
            bound.put(key, b);
            binds++;
        }
        CompletableFuture<Void> done = w.bind(key, region, segment, access.remoteRight());
        if (done.isCompletedExceptionally()) { // refused before posting: nothing was bound
            synchronized (this) {
                bound.remove(key, b);
            }
            w.close();
            try {
                done.join();
            } catch (RuntimeException e) {
                throw new IllegalStateException(name + ": binding a memory window failed: " + e.getMessage(), e);
            }
        }
        done.exceptionally(
                t -> { // a failed bind puts the queue pair in error: the connection ends
                    LOG.debug("{}: a window bind failed: {}", name, t.toString());
                    return null;
                });
        return b;
    }

    /**
     * The server's Send With Invalidate named {@code rkey}: if it is a bound window's, that window is free now and
     * its call's revocation posts nothing for it.
     */
    public void invalidatedByPeer(int rkey) {
        Bound b;
        synchronized (this) {
            b = bound.get(rkey);
        }
        if (b != null) {
            b.invalidatedByPeer();
        }
    }

    /**
     * Deallocates every window, bound or free (the connection is lost or the client closes): from now on no window
     * key reaches memory, whatever the queue pair does; revocations complete at once.
     */
    public void closeAll() {
        List<WindowBinder.Window> all = new ArrayList<>();
        List<Bound> revoked;
        synchronized (this) {
            closed = true;
            all.addAll(free);
            free.clear();
            revoked = new ArrayList<>(bound.values());
        }
        for (Bound b : revoked) {
            b.closeWindow();
        }
        for (WindowBinder.Window w : all) {
            close(w);
        }
    }

    private void close(WindowBinder.Window w) {
        try {
            w.close();
        } catch (RuntimeException e) {
            LOG.warn(name + ": deallocating a memory window", e);
        }
    }

    /** A revoked window goes back to the free list (or is deallocated, after a close). */
    private void recycle(Bound b) {
        synchronized (this) {
            bound.remove(b.key, b);
            if (!closed && !b.window.isClosed()) {
                free.push(b.window);
                return;
            }
        }
        close(b.window);
    }

    private synchronized void forget(Bound b) {
        bound.remove(b.key, b);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(name + ": memory windows are closed");
        }
    }

    /** @return windows allocated so far ({@code ibv_alloc_mw}) */
    public synchronized long allocated() {
        return allocated;
    }

    /** @return windows bound so far */
    public synchronized long binds() {
        return binds;
    }

    /** @return windows bound now */
    public synchronized int boundNow() {
        return bound.size();
    }

    /** One window bound for one chunk of one call. */
    private final class Bound implements Exposure {
        final WindowBinder.Window window;
        final int key;
        /** Guarded by this. */
        private CompletableFuture<Void> revoked;
        /** Guarded by this: the server invalidated it (Send With Invalidate). */
        private boolean peerInvalidated;

        Bound(WindowBinder.Window window, int key) {
            this.window = window;
            this.key = key;
        }

        @Override
        public int rkey() {
            return key;
        }

        synchronized void invalidatedByPeer() {
            if (revoked == null && window.invalidatedByPeer(key)) {
                peerInvalidated = true;
            }
        }

        /** Deallocation: revokes at once; a revocation under way completes with it. */
        void closeWindow() {
            CompletableFuture<Void> r;
            synchronized (this) {
                r = revoked;
                if (r == null) {
                    revoked = r = new CompletableFuture<>();
                }
            }
            close(window);
            forget(this);
            r.complete(null);
        }

        @Override
        public CompletableFuture<Void> revoke() {
            CompletableFuture<Void> r;
            boolean post;
            synchronized (this) {
                if (revoked != null) {
                    return revoked;
                }
                revoked = r = new CompletableFuture<>();
                post = !peerInvalidated;
            }
            if (!post) {
                recycle(this);
                r.complete(null);
                return r;
            }
            CompletableFuture<Void> inv;
            try {
                inv = window.invalidate();
            } catch (RuntimeException e) {
                inv = CompletableFuture.failedFuture(e);
            }
            Callbacks.whenDone(inv, name, (v, t) -> {
                if (t == null) {
                    recycle(this);
                } else {
                    // not executed (queue pair in error, window closed, or found free): deallocating revokes it
                    LOG.debug(
                            "{}: invalidating window 0x{} failed ({}); deallocating it",
                            name,
                            Integer.toHexString(key),
                            t.toString());
                    close(window);
                    forget(this);
                }
                r.complete(null);
            });
            return r;
        }
    }
}
