package org.panamardma.verbs;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * An owner of one native verbs object, with the objects it depends on and the objects that depend on it.
 *
 * <p><b>Closing cascades.</b> Closing a resource first closes everything that depends on it, newest first (closing
 * a {@link Context} closes its PDs, CQs, channels; a PD its MRs and QPs; a CQ the QPs that use it), then destroys
 * its own native object. So no native object is ever destroyed while another still references it (the kernel
 * would refuse with EBUSY), and nothing is left to leak. Using a closed resource throws
 * {@link IllegalStateException}.
 *
 * <p><b>No use after free.</b> Every native call on a resource runs while holding the resource's monitor and
 * after {@link #checkOpen()}; {@link #close()} takes the same monitor. A close from another thread therefore waits
 * for a call in progress and the next call sees the resource closed. Uncontended monitors cost a few nanoseconds
 * and allocate nothing.
 */
public abstract class NativeResource implements AutoCloseable {
    private final String kind;
    private final List<NativeResource> dependencies;
    private final Set<NativeResource> dependents = new LinkedHashSet<>();
    /**
     * Volatile so that a data-path check of a resource whose monitor the caller does not hold (a memory region
     * named in a post) sees a close made by another thread without taking that monitor.
     */
    private volatile boolean closed;
    /** Set first thing by close(), before it competes for the monitor: loops that wait in slices leave on it. */
    private volatile boolean closeRequested;

    /**
     * A resource of {@code kind} (named in messages) made from {@code dependencies}, which must be open: closing one
     * of them closes this resource first.
     *
     * @param kind         what the resource is, e.g. "queue pair"
     * @param dependencies the resources it was made from
     * @throws IllegalStateException if a dependency is closed already
     */
    protected NativeResource(String kind, NativeResource... dependencies) {
        this.kind = kind;
        this.dependencies = List.of(dependencies);
        for (NativeResource d : this.dependencies) {
            d.addDependent(this);
        }
    }

    private void addDependent(NativeResource r) {
        synchronized (this) {
            checkOpen();
            dependents.add(r);
        }
    }

    private void removeDependent(NativeResource r) {
        synchronized (this) {
            dependents.remove(r);
        }
    }

    /**
     * Throws {@link IllegalStateException} if closed. Call while holding this resource's monitor to keep it open
     * across a native call; without the monitor it only says the resource was open at the time of the check.
     */
    protected final void checkOpen() {
        if (closed) {
            throw new IllegalStateException(describe() + " is closed");
        }
    }

    /**
     * {@return whether {@link #close()} has begun}
     * A thread that waits in slices while holding the monitor (the channels) must leave when this is true instead of
     * taking the monitor again: Java monitors are not fair, and the closer could otherwise wait until the whole timeout
     * of the waiter ran out.
     */
    protected final boolean closeRequested() {
        return closeRequested;
    }

    /** {@return whether {@code close()} has been called} */
    public final boolean isClosed() {
        synchronized (this) {
            return closed;
        }
    }

    /** Closes the dependents (newest first), then this resource. Idempotent. */
    @Override
    public final void close() {
        closeRequested = true;
        while (true) {
            List<NativeResource> toClose;
            synchronized (this) {
                if (closed) {
                    return;
                }
                if (dependents.isEmpty()) {
                    closed = true;
                    try {
                        destroy();
                    } finally {
                        for (NativeResource d : dependencies) {
                            d.removeDependent(this);
                        }
                    }
                    return;
                }
                toClose = new ArrayList<>(dependents);
            }
            // outside our monitor: a dependent's close takes its own monitor, then ours to unregister
            for (int i = toClose.size() - 1; i >= 0; i--) {
                toClose.get(i).close();
            }
        }
    }

    /**
     * Destroys the native object. Called once, with the monitor held and every dependent closed. A failure of the
     * native destroy is reported as an unchecked {@link IllegalStateException}: the Java object is closed anyway.
     */
    protected abstract void destroy();

    /** {@return the resource for messages: e.g. {@code "queue pair 17 on rxe0"}} */
    protected String describe() {
        return kind;
    }

    @Override
    public String toString() {
        return describe() + (isClosed() ? " (closed)" : "");
    }
}
