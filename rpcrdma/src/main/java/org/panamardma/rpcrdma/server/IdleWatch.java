package org.panamardma.rpcrdma.server;

import java.time.Duration;
import java.util.Collection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Ends an {@link RpcRdmaServer}'s connections that have been idle (no call taken or in progress) for the idle
 * timeout, as Linux's sunrpc ages out idle transports ({@code svc_age_temp_xprts}, {@code net/sunrpc/svc_xprt.c}):
 * a client that connects and sends nothing, or one whose host vanished without a disconnect (an RC queue pair has no
 * keepalive), does not keep its connection slot, its queue pair and its registered buffers for ever. It also ends a
 * connection whose reply's Send has not completed by its deadline ({@link ServerConnection#closeIfReplyOverdue}):
 * no call thread waits for its Send; and it fails a call's wait for its RDMA Reads once their deadline has passed
 * ({@link ServerConnection#expireOverdueTransfers}): the call's thread waits for them untimed. A platform thread
 * that looks every quarter of the shortest of the idle timeout, the Send timeout and the transfer timeout (at least
 * every 10 ms, at most every 10 s): a virtual one's every timed wake-up would run the virtual-thread scheduler, whose
 * carriers spin before they park again (issue 26).
 */
final class IdleWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(IdleWatch.class);

    private final Collection<ServerConnection> connections;
    private final long idleNanos;
    private final ServerStatistics statistics;
    private final Level level;
    private final Thread thread;

    IdleWatch(
            String name,
            Collection<ServerConnection> connections,
            Duration idle,
            Duration sendTimeout,
            Duration transferTimeout,
            ServerStatistics statistics,
            Level level) {
        this.connections = connections;
        this.idleNanos = idle.toNanos();
        this.statistics = statistics;
        this.level = level;
        long period = periodMillis(idle, sendTimeout, transferTimeout);
        this.thread = Thread.ofPlatform().daemon(true).name(name).start(() -> watch(period));
    }

    /** {@return a quarter of the shortest timeout, from 10 ms to 10 s} */
    static long periodMillis(Duration idle, Duration sendTimeout, Duration transferTimeout) {
        long shortest = Math.min(idle.toMillis(), Math.min(sendTimeout.toMillis(), transferTimeout.toMillis()));
        return Math.max(10, Math.min(10_000, shortest / 4));
    }

    private void watch(long periodMillis) {
        while (true) {
            try {
                Thread.sleep(periodMillis);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (ServerConnection c : connections) {
                c.expireOverdueTransfers(now); // its call closes the connection
                if (c.closeIfReplyOverdue(now)) {
                    continue;
                }
                if (c.idleLongerThan(now, idleNanos)) {
                    statistics.idleTimeout();
                    LOG.atLevel(level)
                            .log(() -> c.rdma().name() + ": closing, idle for " + idleNanos / 1_000_000_000L + " s");
                    Thread.ofVirtual().start(c::close); // close waits for calls in flight: none, but not here
                }
            }
        }
    }

    @Override
    public void close() {
        thread.interrupt();
    }
}
