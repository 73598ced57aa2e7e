package org.panamardma.rpcrdma.memory;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.panamardma.verbs.Access;

/**
 * Type 2 memory windows played on the host, with the checks the verbs layer and a device make: a bind needs a free
 * window and a live region with MW_BIND covering the segment, an invalidation a bound window (a second one would
 * crash rxe's kernel: here it fails the test). {@link #reaches} answers what a server holding a key could touch, the
 * way rxe does it: within the window's region, not only the window (its {@code check_rkey}). Invalidations complete
 * at once, or wait for {@link #completeInvalidations()} when {@link #holdInvalidations} is set; {@link #failInvalidations}
 * makes them fail as on a queue pair in error.
 */
public final class FakeWindows implements WindowBinder {
    private final FakeRegistrar registrar;
    private final AtomicInteger nextIndex = new AtomicInteger(1);
    public final List<FakeWindow> all = new ArrayList<>();
    public final AtomicLong invalidations = new AtomicLong();
    public volatile boolean holdInvalidations;
    public volatile boolean failInvalidations;
    private final List<Runnable> held = new ArrayList<>();

    public FakeWindows(FakeRegistrar registrar) {
        this.registrar = registrar;
    }

    @Override
    public synchronized Window allocate() {
        FakeWindow w = new FakeWindow((0x40000 + nextIndex.getAndIncrement()) << 8 | 0x30);
        all.add(w);
        return w;
    }

    /** Whether an access of {@code length} bytes at {@code address} with {@code rkey} and {@code right} succeeds. */
    public synchronized boolean reaches(int rkey, long address, long length, Access right) {
        for (FakeWindow w : all) {
            if (w.state == State.BOUND && w.rkey == rkey && w.access.contains(right)) {
                return registrar.live.values().stream()
                                .anyMatch(l -> l.segment().equals(w.region)) // region alive
                        && address >= w.region.address()
                        && address + length <= w.region.address() + w.region.byteSize();
            }
        }
        return false;
    }

    public synchronized int boundCount() {
        return (int) all.stream().filter(w -> w.state == State.BOUND).count();
    }

    public synchronized void completeInvalidations() {
        List<Runnable> now = new ArrayList<>(held);
        held.clear();
        now.forEach(Runnable::run);
    }

    enum State {
        FREE,
        BOUND,
        CLOSED
    }

    public final class FakeWindow implements Window {
        int rkey;
        State state = State.FREE;
        MemorySegment region;
        Set<Access> access = Set.of();

        FakeWindow(int rkey) {
            this.rkey = rkey;
        }

        @Override
        public int rkey() {
            synchronized (FakeWindows.this) {
                return rkey;
            }
        }

        @Override
        public int nextRkey() {
            synchronized (FakeWindows.this) {
                return (rkey & ~0xff) | ((rkey + 1) & 0xff);
            }
        }

        @Override
        public CompletableFuture<Void> bind(int newRkey, Registration r, MemorySegment segment, Set<Access> rights) {
            synchronized (FakeWindows.this) {
                if (state != State.FREE) {
                    return CompletableFuture.failedFuture(new IllegalStateException("window " + state));
                }
                FakeRegistrar.Live live = registrar.live.get(r.rkey());
                if (live == null || !live.access().contains(Access.MW_BIND)) {
                    return CompletableFuture.failedFuture(new IllegalArgumentException("no live MW_BIND region"));
                }
                long base = live.segment().address();
                if (segment.address() < base
                        || segment.address() + segment.byteSize()
                                > base + live.segment().byteSize()) {
                    return CompletableFuture.failedFuture(new IndexOutOfBoundsException("outside the region"));
                }
                if ((newRkey & ~0xff) != (rkey & ~0xff) || newRkey == rkey) {
                    throw new AssertionError("a bind must take the window's next key");
                }
                rkey = newRkey;
                state = State.BOUND;
                region = live.segment();
                access = Set.copyOf(rights);
                return CompletableFuture.completedFuture(null);
            }
        }

        @Override
        public CompletableFuture<Void> invalidate() {
            CompletableFuture<Void> f = new CompletableFuture<>();
            synchronized (FakeWindows.this) {
                if (state != State.BOUND) {
                    throw new AssertionError("invalidating a " + state + " window (rxe's kernel would crash)");
                }
                invalidations.incrementAndGet();
                Runnable done = () -> {
                    synchronized (FakeWindows.this) {
                        if (failInvalidations) {
                            f.completeExceptionally(new IllegalStateException("flushed"));
                            return;
                        }
                        if (state == State.BOUND) {
                            state = State.FREE;
                        }
                    }
                    f.complete(null);
                };
                if (holdInvalidations) {
                    held.add(done);
                    return f;
                }
                done.run();
                return f;
            }
        }

        @Override
        public boolean invalidatedByPeer(int key) {
            synchronized (FakeWindows.this) {
                if (state == State.BOUND && key == rkey) {
                    state = State.FREE;
                    return true;
                }
                return false;
            }
        }

        @Override
        public void close() {
            synchronized (FakeWindows.this) {
                state = State.CLOSED;
            }
        }

        @Override
        public boolean isClosed() {
            synchronized (FakeWindows.this) {
                return state == State.CLOSED;
            }
        }
    }
}
