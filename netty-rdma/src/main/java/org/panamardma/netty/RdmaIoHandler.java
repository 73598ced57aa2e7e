package org.panamardma.netty;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.IoOps;
import io.netty.channel.IoRegistration;
import io.netty.util.concurrent.ThreadAwareExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.panamardma.verbs.CompletionQueue;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmEventType;
import org.panamardma.verbs.cm.CmId;
import org.panamardma.verbs.cm.EventChannel;
import org.panamardma.verbs.connection.FdWaiter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The I/O of one Netty 4.2 event loop over RDMA: use it as {@code new MultiThreadIoEventLoopGroup(n,
 * RdmaIoHandler.newFactory())} with {@link RdmaChannel} / {@link RdmaServerChannel}.
 *
 * <p>Netty 4.2 splits an event loop into the loop (tasks, timers: {@code SingleThreadIoEventLoop}) and an
 * {@link IoHandler} that waits for and dispatches I/O; this is that handler for RDMA, as {@code EpollIoHandler} is for
 * sockets. It sleeps in one {@code poll(2)} ({@link FdWaiter}) on the completion channel of each device its
 * connections use, its rdma_cm event channel, and an eventfd through which Netty wakes it for a task. When a
 * completion channel fires it takes the CQ events, polls each CQ dry, arms it and polls again (completions that
 * raced the arming raise no event), handing every completion to its channel on this thread; when the event channel
 * fires it takes the rdma_cm events and hands each to the channel of its id.
 *
 * <p>Per device it keeps a protection domain shared by its connections, their completion channel and a pool of
 * registered memory ({@link SlabPool}, at most {@link Config#poolLimitBytes()} pinned), all closed when the loop
 * ends; a channel's own resources (its rdma_cm id, queue pair, CQ, send and receive buffers) are closed with the
 * channel. Nothing is allocated per completion.
 */
public final class RdmaIoHandler implements IoHandler {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaIoHandler.class);
    /** The longest single sleep: Netty's own timers wake the loop sooner; this only bounds a lost wake-up. */
    private static final int MAX_SLEEP_MILLIS = 1000;

    private static final int BATCH = 32;

    /**
     * The handler's settings.
     *
     * @param poolLimitBytes registered memory per device for {@code ByteBuf}s (the pool behind
     *                       {@link RdmaByteBufAllocator}); beyond it buffers are ordinary memory and copied
     * @param busyPoll       after a completion, keep polling without sleeping for this long (zero: sleep at once)
     */
    public record Config(long poolLimitBytes, Duration busyPoll) {
        /** A 64 MiB pool limit and no busy polling. */
        public static final Config DEFAULT = new Config(64L << 20, Duration.ZERO);

        /** Checks the limits: a pool limit not negative, busy polling within [0, 1 s]. */
        public Config {
            if (poolLimitBytes < 0) {
                throw new IllegalArgumentException("negative pool limit " + poolLimitBytes);
            }
            if (busyPoll.isNegative() || busyPoll.compareTo(Duration.ofSeconds(1)) > 0) {
                throw new IllegalArgumentException("busy poll " + busyPoll + " not in [0, 1 s]");
            }
        }

        /**
         * This configuration with another busy-poll time.
         *
         * @param d the busy-poll time, 0 to 1 s
         * @return the new configuration
         */
        public Config withBusyPoll(Duration d) {
            return new Config(poolLimitBytes, d);
        }

        /**
         * This configuration with another pool limit.
         *
         * @param bytes the registered pool's limit in bytes
         * @return the new configuration
         */
        public Config withPoolLimitBytes(long bytes) {
            return new Config(bytes, busyPoll);
        }
    }

    /**
     * The factory for {@code MultiThreadIoEventLoopGroup}, with {@link Config#DEFAULT}.
     *
     * @return the factory
     */
    public static IoHandlerFactory newFactory() {
        return newFactory(Config.DEFAULT);
    }

    /**
     * The factory for {@code MultiThreadIoEventLoopGroup}, with a configuration of its own.
     *
     * @param config the pool limit and busy polling of each event loop
     * @return the factory
     */
    public static IoHandlerFactory newFactory(Config config) {
        return executor -> new RdmaIoHandler(executor, config);
    }

    private final ThreadAwareExecutor executor;
    private final Config config;
    private final FdWaiter waiter;
    private final AtomicBoolean sleeping = new AtomicBoolean();
    private final WorkCompletions wc = WorkCompletions.allocate(BATCH);
    private final Map<Context, DeviceResources> devices = new IdentityHashMap<>();
    /** The same, as a list: walked by index when a descriptor is ready (no iterator allocated per wake-up). */
    private final ArrayList<DeviceResources> deviceList = new ArrayList<>();

    private final Map<CompletionQueue, Registration> cqOwners = new IdentityHashMap<>();
    /** rdma_cm ids whose events this handler's event channel delivers, by id: the channels they belong to. */
    private final Map<CmId, RdmaIoHandle> cmOwners = new ConcurrentHashMap<>();

    private final List<Registration> registrations = new ArrayList<>();
    private final ArrayList<CompletionQueue> readyCqs = new ArrayList<>();
    private EventChannel cmChannel;
    private long lastCompletionNanos;

    private RdmaIoHandler(ThreadAwareExecutor executor, Config config) {
        this.executor = executor;
        this.config = config;
        try {
            this.waiter = FdWaiter.create();
        } catch (RdmaException e) {
            wc.close();
            throw new IllegalStateException("cannot make the RDMA event loop's waiter: " + e.getMessage(), e);
        }
    }

    // ------------------------------------------------------------------------------------------- IoHandler

    @Override
    public int run(IoHandlerContext context) {
        int timeout = 0;
        boolean busy = !config.busyPoll().isZero()
                && System.nanoTime() - lastCompletionNanos < config.busyPoll().toNanos();
        if (!busy && context.canBlock()) {
            sleeping.set(true);
            // a task added before this set saw sleeping false and did not wake us: canBlock() sees the task now
            if (context.canBlock()) {
                long delay = context.delayNanos(System.nanoTime());
                timeout = (int) Math.min(MAX_SLEEP_MILLIS, Math.max(0, (delay + 999_999) / 1_000_000));
            }
        }
        int handled = 0;
        try {
            int ready = waiter.await(timeout);
            sleeping.set(false);
            for (int i = 0; i < ready; i++) {
                handled += dispatchReady(waiter.readyFd(i));
            }
            if (busy) {
                handled += pollAll();
            }
        } catch (RdmaException | RuntimeException e) {
            sleeping.set(false);
            LOG.warn("RDMA event loop: {}", e.toString(), e);
        }
        return handled;
    }

    private int dispatchReady(int fd) throws RdmaException {
        if (cmChannel != null && fd == cmChannel.fd()) {
            int n = 0;
            CmEvent e;
            while ((e = cmChannel.poll(Duration.ZERO)) != null) {
                dispatchCmEvent(e);
                n++;
            }
            return n;
        }
        for (int k = 0; k < deviceList.size(); k++) {
            DeviceResources d = deviceList.get(k);
            if (d.channel.fd() == fd) {
                CompletionQueue cq;
                while ((cq = d.channel.await(0)) != null) {
                    readyCqs.add(cq);
                }
                int n = 0;
                try {
                    for (int i = 0; i < readyCqs.size(); i++) {
                        n += drain(readyCqs.get(i));
                    }
                } finally {
                    readyCqs.clear();
                }
                return n;
            }
        }
        return 0;
    }

    private int pollAll() throws RdmaException {
        int n = 0;
        for (int i = 0; i < registrations.size(); i++) {
            CompletionQueue cq = registrations.get(i).cq;
            if (cq != null) {
                n += drain(cq);
            }
        }
        return n;
    }

    /** Polls {@code cq} dry, arms it, polls again; hands each completion to its channel. */
    private int drain(CompletionQueue cq) throws RdmaException {
        Registration r = cqOwners.get(cq);
        if (r == null || cq.isClosed()) {
            return 0;
        }
        int total = pollDry(r, cq);
        if (!r.valid || cq.isClosed()) {
            return total; // its channel closed while handling a completion
        }
        cq.requestNotification(false);
        total += pollDry(r, cq);
        if (total > 0) {
            lastCompletionNanos = System.nanoTime();
            r.handle.completionsDrained();
        }
        return total;
    }

    private int pollDry(Registration r, CompletionQueue cq) throws RdmaException {
        int total = 0;
        int n;
        do {
            if (!r.valid || cq.isClosed()) {
                return total;
            }
            n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                r.handle.completion(wc, i);
            }
            total += n;
        } while (n == BATCH);
        return total;
    }

    private void dispatchCmEvent(CmEvent e) {
        CmId owner = e.type() == CmEventType.CONNECT_REQUEST && e.listenId() != null ? e.listenId() : e.id();
        RdmaIoHandle h = cmOwners.get(owner);
        if (h != null) {
            h.cmEvent(e);
        } else if (e.type() == CmEventType.CONNECT_REQUEST) {
            e.id().close(); // a listener closed meanwhile: nobody will accept it
        } else {
            LOG.debug("rdma_cm event without a channel: {}", e);
        }
    }

    @Override
    public void prepareToDestroy() {
        for (Registration r : new ArrayList<>(registrations)) {
            try {
                r.handle.close();
            } catch (Exception e) {
                LOG.debug("closing {} with its event loop", r.handle, e);
            }
        }
    }

    @Override
    public void destroy() {
        for (Registration r : new ArrayList<>(registrations)) {
            try {
                r.handle.closeNow();
            } catch (Exception e) {
                LOG.debug("closing {}", r.handle, e);
            }
        }
        if (cmChannel != null) {
            cmChannel.close();
        }
        for (DeviceResources d : devices.values()) {
            try {
                d.close();
            } catch (RuntimeException e) {
                LOG.warn("closing the event loop's resources on {}: {}", d.context.deviceName(), e.toString());
            }
        }
        devices.clear();
        deviceList.clear();
        waiter.close();
        wc.close();
    }

    @Override
    public IoRegistration register(IoHandle handle) {
        if (!(handle instanceof RdmaIoHandle h)) {
            throw new IllegalArgumentException("an RDMA event loop runs RDMA channels only, not " + handle);
        }
        Registration r = new Registration(h);
        registrations.add(r);
        h.registered();
        return r;
    }

    @Override
    public void wakeup() {
        if (!executor.isExecutorThread(Thread.currentThread()) && sleeping.compareAndSet(true, false)) {
            waiter.wakeup();
        }
    }

    @Override
    public boolean isCompatible(Class<? extends IoHandle> handleType) {
        return RdmaIoHandle.class.isAssignableFrom(handleType);
    }

    // ------------------------------------------------------------------------- what the channels use (loop thread)

    long poolLimitBytes() {
        return config.poolLimitBytes();
    }

    /** This loop's rdma_cm event channel (made on first use, watched by the waiter). */
    EventChannel cmChannel() throws RdmaException {
        if (cmChannel == null) {
            EventChannel c = EventChannel.create();
            try {
                waiter.add(c.fd());
            } catch (RuntimeException e) {
                c.close();
                throw e;
            }
            cmChannel = c;
        }
        return cmChannel;
    }

    /** Events of {@code id} (made on this loop's event channel) go to {@code handle}; any thread. */
    void watchCmId(CmId id, RdmaIoHandle handle) {
        cmOwners.put(id, handle);
    }

    void unwatchCmId(CmId id) {
        cmOwners.remove(id);
    }

    /** The loop's PD, completion channel and registered pool on {@code context}'s device (made on first use). */
    DeviceResources device(Context context) throws RdmaException {
        DeviceResources d = devices.get(context);
        if (d == null) {
            d = DeviceResources.open(context, config.poolLimitBytes());
            try {
                waiter.add(d.channel.fd());
            } catch (RuntimeException e) {
                d.close();
                throw e;
            }
            devices.put(context, d);
            deviceList.add(d);
        }
        return d;
    }

    /** The completions of {@code cq} (on a completion channel of this loop) go to {@code handle}; armed here. */
    void watchCq(RdmaIoHandle handle, CompletionQueue cq) throws RdmaException {
        for (Registration r : registrations) {
            if (r.handle == handle) {
                r.cq = cq;
                cqOwners.put(cq, r);
                cq.requestNotification(false);
                return;
            }
        }
        throw new IllegalStateException(handle + " is not registered with this event loop");
    }

    /** Polls {@code cq} now (a peer's DISCONNECTED may overtake its last completions). */
    void drainNow(CompletionQueue cq) throws RdmaException {
        drain(cq);
    }

    /**
     * Runs {@code task} on this loop; nothing if the loop has shut down: then its {@link #prepareToDestroy} and
     * {@link #destroy} closed every connection it had, lingering ones included (a CM event another loop dispatches,
     * such as a server child's DISCONNECTED, can come after that).
     */
    void executeOnLoop(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            LOG.debug("event loop shut down; not run: {}", task);
        }
    }

    /**
     * Hands a closed channel's connection ({@code lingering}: its CQ and id) over from the channel's handle, until
     * its posted SENDs are acknowledged ({@link RdmaChannel.Lingering}).
     */
    void linger(
            RdmaIoHandle channelIo, RdmaIoHandle lingering, CompletionQueue cq, CmId id, RdmaIoHandler eventsHandler) {
        for (Registration r : registrations) {
            if (r.handle == channelIo && r.cq == cq) {
                r.cq = null;
            }
        }
        Registration l = new Registration(lingering);
        registrations.add(l);
        l.cq = cq;
        cqOwners.put(cq, l);
        (eventsHandler != null ? eventsHandler : this).watchCmId(id, lingering);
    }

    /** A lingering connection is done: forget it. */
    void endLinger(RdmaIoHandle lingering) {
        for (Registration r : new ArrayList<>(registrations)) {
            if (r.handle == lingering) {
                registrations.remove(r);
                if (r.cq != null) {
                    cqOwners.remove(r.cq);
                }
            }
        }
    }

    void unwatchCq(CompletionQueue cq) {
        Registration r = cqOwners.remove(cq);
        if (r != null) {
            r.cq = null;
        }
    }

    static RdmaIoHandler of(IoRegistration registration) {
        return registration.attachment();
    }

    /** The registration of one channel. */
    private final class Registration implements IoRegistration {
        final RdmaIoHandle handle;
        CompletionQueue cq;
        volatile boolean valid = true;

        Registration(RdmaIoHandle handle) {
            this.handle = handle;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T attachment() {
            return (T) RdmaIoHandler.this;
        }

        @Override
        public long submit(IoOps ops) {
            // RDMA channels ask for nothing: completions and CM events always come
            return 0;
        }

        @Override
        public boolean isValid() {
            return valid;
        }

        @Override
        public boolean cancel() {
            if (!valid) {
                return false;
            }
            valid = false;
            // Netty calls cancel on the loop thread (doDeregister); the maps are the loop's
            if (executor.isExecutorThread(Thread.currentThread())) {
                forget();
            } else {
                executor.execute(this::forget);
            }
            return true;
        }

        private void forget() {
            registrations.remove(this);
            if (cq != null) {
                cqOwners.remove(cq);
                cq = null;
            }
            handle.unregistered();
        }
    }
}
