package org.panamardma.oncrpc.limits;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * Which connections a server takes: at most {@code maxConnections} at once, and at most {@code maxPerAddress} from
 * one client address, so that one host cannot take every slot and lock the others out (the per-address cap), nor
 * all hosts together more than the server was sized for (the total cap: each connection costs fixed memory, threads,
 * and on RDMA registered buffers and a queue pair). Linux's sunrpc caps a server's connections in
 * {@code svc_check_conn_limits} ({@code net/sunrpc/svc_xprt.c}); the per-address cap is this project's addition.
 *
 * <p>A request is decided before anything is allocated for it; an admitted one holds a {@link Ticket} until its
 * connection is gone. Refusals are counted by reason ({@link #refused(Refusal)}), not logged here: the transports log
 * them at a bounded rate ({@link RateLimitedLog}). Thread-safe.
 */
public final class ConnectionAdmission {
    /** Why a connection was refused. */
    public enum Refusal {
        /** The server had its most connections. */
        SERVER_FULL,
        /** The client's address had its most connections. */
        ADDRESS_FULL
    }

    /** The outcome of {@link #admit}: a ticket, or the reason for a refusal. */
    public sealed interface Decision permits Ticket, Refused {}

    /**
     * The refusal of one request.
     *
     * @param reason which cap it met
     * @param limit that cap
     * @param address the client's address
     */
    public record Refused(Refusal reason, int limit, InetAddress address) implements Decision {}

    private final int maxConnections;
    private final int maxPerAddress;
    private final Map<InetAddress, Integer> perAddress = new HashMap<>();
    private int open;
    private final LongAdder admitted = new LongAdder();
    private final LongAdder serverFull = new LongAdder();
    private final LongAdder addressFull = new LongAdder();

    /**
     * Caps for one server.
     *
     * @param maxConnections the most connections at once
     * @param maxPerAddress the most connections at once from one client address
     * @throws IllegalArgumentException if either cap is below 1
     */
    public ConnectionAdmission(int maxConnections, int maxPerAddress) {
        if (maxConnections < 1 || maxPerAddress < 1) {
            throw new IllegalArgumentException(
                    "at least one connection in all and per address, not " + maxConnections + " and " + maxPerAddress);
        }
        this.maxConnections = maxConnections;
        this.maxPerAddress = maxPerAddress;
    }

    /**
     * Admits a connection from {@code address} if both caps allow it.
     *
     * @param address the client's address; null when the transport cannot tell it (counted under no address, so
     *                only the total cap applies)
     * @return a {@link Ticket} to close when the connection ends, or a {@link Refused} (counted)
     */
    public Decision admit(InetAddress address) {
        synchronized (this) {
            if (open >= maxConnections) {
                serverFull.increment();
                return new Refused(Refusal.SERVER_FULL, maxConnections, address);
            }
            if (address != null) {
                int from = perAddress.getOrDefault(address, 0);
                if (from >= maxPerAddress) {
                    addressFull.increment();
                    return new Refused(Refusal.ADDRESS_FULL, maxPerAddress, address);
                }
                perAddress.put(address, from + 1);
            }
            open++;
        }
        admitted.increment();
        return new Ticket(address);
    }

    private synchronized void leave(InetAddress address) {
        open--;
        if (address != null) {
            perAddress.computeIfPresent(address, (a, n) -> n == 1 ? null : n - 1);
        }
    }

    /** {@return the connections admitted and not yet gone} */
    public synchronized int open() {
        return open;
    }

    /**
     * {@return the connections admitted and not yet gone from {@code address}}
     *
     * @param address a client address
     */
    public synchronized int openFrom(InetAddress address) {
        return perAddress.getOrDefault(Objects.requireNonNull(address, "address"), 0);
    }

    /** {@return the connections admitted since the start} */
    public long admitted() {
        return admitted.sum();
    }

    /**
     * {@return the requests refused for {@code reason} since the start}
     *
     * @param reason which cap refused them
     */
    public long refused(Refusal reason) {
        return switch (reason) {
            case SERVER_FULL -> serverFull.sum();
            case ADDRESS_FULL -> addressFull.sum();
        };
    }

    /** {@return the requests refused for any reason since the start} */
    public long refused() {
        return serverFull.sum() + addressFull.sum();
    }

    /** {@return the most connections at once} */
    public int maxConnections() {
        return maxConnections;
    }

    /** {@return the most connections at once from one address} */
    public int maxPerAddress() {
        return maxPerAddress;
    }

    /** An admitted connection's place: {@link #close()} (once, from any thread; again is harmless) gives it back. */
    public final class Ticket implements Decision, AutoCloseable {
        private final InetAddress address;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Ticket(InetAddress address) {
            this.address = address;
        }

        /** {@return the address the connection came from, null if unknown} */
        public InetAddress address() {
            return address;
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                leave(address);
            }
        }
    }
}
