package org.panamardma.rpcrdma.client;

import java.time.Duration;
import java.util.Objects;
import org.panamardma.rpcrdma.ConnectPrivateData;
import org.panamardma.verbs.connection.ConnectionOptions;

/**
 * How an {@link RpcRdmaClient} connects and plans its calls.
 *
 * @param inlineSend the largest inline message we send: announced to the server as cp_send_size (RFC 8797); the
 *     send threshold is the smaller of this and the server's cp_recv_size. 1024 to 262144, a multiple of 1024
 * @param inlineReceive the largest inline message we announce we can receive (cp_recv_size). Our receive buffers are
 *     never smaller than {@value #MIN_RECEIVE_BUFFER} bytes whatever is announced: Linux knfsd reads only the flags
 *     of the client's private data (svc_rdma_parse_connect_private) and may send replies of up to its own 4 KiB
 *     inline size; a smaller buffer would take the connection down. Announcing 1024 still makes the planner
 *     offer chunks for any reply that might exceed 1024 bytes
 * @param maxRequests the credits we ask for and the most calls we let be outstanding (receives kept posted)
 * @param readChunkMinimum DDP-eligible argument items smaller than this stay inline when a call does not fit
 * @param writeChunkMinimum placement targets smaller than this get no Write chunk (0: every target gets one)
 * @param alwaysReplyChunk offer a Reply chunk with every call, so that the server returns every reply by RDMA
 *     Write and sends RDMA_NOMSG (knfsd uses a Reply chunk whenever one is offered)
 * @param connectTimeout for each rdma_cm step and for close
 * @param callTimeout the default per-call timeout
 * @param bufferPoolBytes the most memory the client's {@link RegisteredBufferPool} holds (its buffers, leased by
 *     callers and by the client for Reply chunks and copies of heap data); 0 for none. Exposes nothing by itself:
 *     the server reaches a pool buffer only through a call's chunk, for that call (see {@code exposure})
 * @param registrationCacheBytes with memory windows, the most of the caller's own memory kept registered between
 *     calls (registrations without any remote right, which windows are bound to; an arena's go within a second of
 *     its close, or at once with {@link RpcRdmaClient#forgetRegistrations}); 0 to register the caller's memory per
 *     call. Exposes nothing by itself either. Unused with per-call registration
 * @param busyPoll zero (the default): the connection's poller sleeps whenever its CQ is empty, so each reply costs
 *     a wake-up. Positive: the poller keeps polling for up to this long after each completion, so a reply arriving
 *     within it is decoded and its future completed with no wake-up, at the price of a CPU spinning while calls
 *     flow (the latency mode: see {@code ConnectionOptions.busyPoll}). At most one second
 * @param exposure how the server is let at a call's chunks: with every mode, exactly the call's own segments, each
 *     with its one right, during the call only (RFC 8166 section 3.4.3), revoked before the call's future completes.
 *     {@link ChunkExposure#AUTO} (the default) takes memory windows where the device has sound ones, else registers
 *     each chunk for its call; see {@link ChunkExposure} for what each costs and needs
 */
public record RpcRdmaClientOptions(
        int inlineSend,
        int inlineReceive,
        int maxRequests,
        int readChunkMinimum,
        int writeChunkMinimum,
        boolean alwaysReplyChunk,
        Duration connectTimeout,
        Duration callTimeout,
        long bufferPoolBytes,
        long registrationCacheBytes,
        Duration busyPoll,
        ChunkExposure exposure) {
    /** The smallest receive buffer we post (see {@code inlineReceive}). */
    public static final int MIN_RECEIVE_BUFFER = 4096;

    /** The default bound of the buffer pool and of the registration cache: 64 MiB each. */
    public static final long DEFAULT_PINNED_BYTES = 64L << 20;

    /**
     * 4 KiB both ways (Linux's default inline threshold, RPCRDMA_DEF_INLINE_THRESH), 64 credits (knfsd's default
     * grant), chunks for items of 1 KiB and more, 30 s to connect, 60 s per call, at most 64 MiB in the buffer pool
     * and 64 MiB of caller memory kept registered by the cache (both as used, not up front), chunks exposed as
     * {@link ChunkExposure#AUTO} chooses: the call's own segments, during the call.
     */
    public static final RpcRdmaClientOptions DEFAULTS = new RpcRdmaClientOptions(
            4096,
            4096,
            64,
            1024,
            1024,
            false,
            Duration.ofSeconds(30),
            Duration.ofSeconds(60),
            DEFAULT_PINNED_BYTES,
            DEFAULT_PINNED_BYTES,
            Duration.ZERO,
            ChunkExposure.AUTO);

    /**
     * The options as they were before the buffer pool and the registration cache, with their default bounds.
     *
     * @param inlineSend see {@link #inlineSend()}
     * @param inlineReceive see {@link #inlineReceive()}
     * @param maxRequests see {@link #maxRequests()}
     * @param readChunkMinimum see {@link #readChunkMinimum()}
     * @param writeChunkMinimum see {@link #writeChunkMinimum()}
     * @param alwaysReplyChunk see {@link #alwaysReplyChunk()}
     * @param connectTimeout see {@link #connectTimeout()}
     * @param callTimeout see {@link #callTimeout()}
     */
    public RpcRdmaClientOptions(
            int inlineSend,
            int inlineReceive,
            int maxRequests,
            int readChunkMinimum,
            int writeChunkMinimum,
            boolean alwaysReplyChunk,
            Duration connectTimeout,
            Duration callTimeout) {
        this(
                inlineSend,
                inlineReceive,
                maxRequests,
                readChunkMinimum,
                writeChunkMinimum,
                alwaysReplyChunk,
                connectTimeout,
                callTimeout,
                DEFAULT_PINNED_BYTES,
                DEFAULT_PINNED_BYTES,
                Duration.ZERO,
                ChunkExposure.AUTO);
    }

    /**
     * The options as they were before busy polling: the poller sleeps whenever its CQ is empty.
     *
     * @param inlineSend see {@link #inlineSend()}
     * @param inlineReceive see {@link #inlineReceive()}
     * @param maxRequests see {@link #maxRequests()}
     * @param readChunkMinimum see {@link #readChunkMinimum()}
     * @param writeChunkMinimum see {@link #writeChunkMinimum()}
     * @param alwaysReplyChunk see {@link #alwaysReplyChunk()}
     * @param connectTimeout see {@link #connectTimeout()}
     * @param callTimeout see {@link #callTimeout()}
     * @param bufferPoolBytes see {@link #bufferPoolBytes()}
     * @param registrationCacheBytes see {@link #registrationCacheBytes()}
     */
    public RpcRdmaClientOptions(
            int inlineSend,
            int inlineReceive,
            int maxRequests,
            int readChunkMinimum,
            int writeChunkMinimum,
            boolean alwaysReplyChunk,
            Duration connectTimeout,
            Duration callTimeout,
            long bufferPoolBytes,
            long registrationCacheBytes) {
        this(
                inlineSend,
                inlineReceive,
                maxRequests,
                readChunkMinimum,
                writeChunkMinimum,
                alwaysReplyChunk,
                connectTimeout,
                callTimeout,
                bufferPoolBytes,
                registrationCacheBytes,
                Duration.ZERO,
                ChunkExposure.AUTO);
    }

    /**
     * The options as they were before the choice of exposure: {@link ChunkExposure#AUTO}.
     *
     * @param inlineSend see {@link #inlineSend()}
     * @param inlineReceive see {@link #inlineReceive()}
     * @param maxRequests see {@link #maxRequests()}
     * @param readChunkMinimum see {@link #readChunkMinimum()}
     * @param writeChunkMinimum see {@link #writeChunkMinimum()}
     * @param alwaysReplyChunk see {@link #alwaysReplyChunk()}
     * @param connectTimeout see {@link #connectTimeout()}
     * @param callTimeout see {@link #callTimeout()}
     * @param bufferPoolBytes see {@link #bufferPoolBytes()}
     * @param registrationCacheBytes see {@link #registrationCacheBytes()}
     * @param busyPoll see {@link #busyPoll()}
     */
    public RpcRdmaClientOptions(
            int inlineSend,
            int inlineReceive,
            int maxRequests,
            int readChunkMinimum,
            int writeChunkMinimum,
            boolean alwaysReplyChunk,
            Duration connectTimeout,
            Duration callTimeout,
            long bufferPoolBytes,
            long registrationCacheBytes,
            Duration busyPoll) {
        this(
                inlineSend,
                inlineReceive,
                maxRequests,
                readChunkMinimum,
                writeChunkMinimum,
                alwaysReplyChunk,
                connectTimeout,
                callTimeout,
                bufferPoolBytes,
                registrationCacheBytes,
                busyPoll,
                ChunkExposure.AUTO);
    }

    /**
     * Checks every option.
     *
     * @throws IllegalArgumentException naming the option out of its range
     * @throws NullPointerException if a duration or the exposure is null
     */
    public RpcRdmaClientOptions {
        ConnectPrivateData.of(inlineSend, inlineReceive, false); // range checks
        if (inlineSend % 1024 != 0
                || inlineReceive % 1024 != 0
                || inlineSend > ConnectPrivateData.MAX_SIZE
                || inlineReceive > ConnectPrivateData.MAX_SIZE) {
            throw new IllegalArgumentException(
                    "inline sizes must be multiples of 1024 up to 256 KiB: " + inlineSend + ", " + inlineReceive);
        }
        if (maxRequests < 1 || maxRequests > 1024) {
            throw new IllegalArgumentException("maxRequests " + maxRequests + " not in [1, 1024]");
        }
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(callTimeout, "callTimeout");
        if (bufferPoolBytes < 0 || registrationCacheBytes < 0) {
            throw new IllegalArgumentException("pinned memory bounds must not be negative: buffer pool "
                    + bufferPoolBytes + ", registration cache " + registrationCacheBytes);
        }
        Objects.requireNonNull(busyPoll, "busyPoll");
        if (busyPoll.isNegative() || busyPoll.compareTo(ConnectionOptions.MAX_BUSY_POLL) > 0) {
            throw new IllegalArgumentException(
                    "busy poll " + busyPoll + " not in [0, " + ConnectionOptions.MAX_BUSY_POLL + "]");
        }
        Objects.requireNonNull(exposure, "exposure");
    }

    /**
     * {@return these options with other inline sizes}
     *
     * @param send see {@link #inlineSend()}
     * @param receive see {@link #inlineReceive()}
     */
    public RpcRdmaClientOptions withInline(int send, int receive) {
        return new RpcRdmaClientOptions(
                send,
                receive,
                maxRequests,
                readChunkMinimum,
                writeChunkMinimum,
                alwaysReplyChunk,
                connectTimeout,
                callTimeout,
                bufferPoolBytes,
                registrationCacheBytes,
                busyPoll,
                exposure);
    }

    /**
     * {@return these options with another credit request}
     *
     * @param n see {@link #maxRequests()}
     */
    public RpcRdmaClientOptions withMaxRequests(int n) {
        return new RpcRdmaClientOptions(
                inlineSend,
                inlineReceive,
                n,
                readChunkMinimum,
                writeChunkMinimum,
                alwaysReplyChunk,
                connectTimeout,
                callTimeout,
                bufferPoolBytes,
                registrationCacheBytes,
                busyPoll,
                exposure);
    }

    /**
     * {@return these options with other chunk minimums}
     *
     * @param read see {@link #readChunkMinimum()}
     * @param write see {@link #writeChunkMinimum()}
     */
    public RpcRdmaClientOptions withChunkMinimums(int read, int write) {
        return new RpcRdmaClientOptions(
                inlineSend,
                inlineReceive,
                maxRequests,
                read,
                write,
                alwaysReplyChunk,
                connectTimeout,
                callTimeout,
                bufferPoolBytes,
                registrationCacheBytes,
                busyPoll,
                exposure);
    }

    /**
     * {@return these options offering a Reply chunk with every call, or not}
     *
     * @param always see {@link #alwaysReplyChunk()}
     */
    public RpcRdmaClientOptions withAlwaysReplyChunk(boolean always) {
        return new RpcRdmaClientOptions(
                inlineSend,
                inlineReceive,
                maxRequests,
                readChunkMinimum,
                writeChunkMinimum,
                always,
                connectTimeout,
                callTimeout,
                bufferPoolBytes,
                registrationCacheBytes,
                busyPoll,
                exposure);
    }

    /**
     * {@return these options with other timeouts}
     *
     * @param connect see {@link #connectTimeout()}
     * @param call see {@link #callTimeout()}
     */
    public RpcRdmaClientOptions withTimeouts(Duration connect, Duration call) {
        return new RpcRdmaClientOptions(
                inlineSend,
                inlineReceive,
                maxRequests,
                readChunkMinimum,
                writeChunkMinimum,
                alwaysReplyChunk,
                connect,
                call,
                bufferPoolBytes,
                registrationCacheBytes,
                busyPoll,
                exposure);
    }

    /**
     * {@return these options with the pinned memory bounds of the buffer pool and the registration cache}
     *
     * @param bufferPool see {@link #bufferPoolBytes()}
     * @param registrationCache see {@link #registrationCacheBytes()}
     */
    public RpcRdmaClientOptions withPinnedMemory(long bufferPool, long registrationCache) {
        return new RpcRdmaClientOptions(
                inlineSend,
                inlineReceive,
                maxRequests,
                readChunkMinimum,
                writeChunkMinimum,
                alwaysReplyChunk,
                connectTimeout,
                callTimeout,
                bufferPool,
                registrationCache,
                busyPoll,
                exposure);
    }

    /**
     * {@return these options with the connection's poller busy-polling for up to {@code d} after each completion}
     *
     * @param d see {@link #busyPoll()}
     */
    public RpcRdmaClientOptions withBusyPoll(Duration d) {
        return new RpcRdmaClientOptions(
                inlineSend,
                inlineReceive,
                maxRequests,
                readChunkMinimum,
                writeChunkMinimum,
                alwaysReplyChunk,
                connectTimeout,
                callTimeout,
                bufferPoolBytes,
                registrationCacheBytes,
                d,
                exposure);
    }

    /**
     * {@return these options with chunks exposed as {@code e} says}
     *
     * @param e see {@link #exposure()}
     */
    public RpcRdmaClientOptions withExposure(ChunkExposure e) {
        return new RpcRdmaClientOptions(
                inlineSend,
                inlineReceive,
                maxRequests,
                readChunkMinimum,
                writeChunkMinimum,
                alwaysReplyChunk,
                connectTimeout,
                callTimeout,
                bufferPoolBytes,
                registrationCacheBytes,
                busyPoll,
                e);
    }

    /** {@return the size of each posted receive buffer} */
    public int receiveBufferSize() {
        return Math.max(inlineReceive, MIN_RECEIVE_BUFFER);
    }

    /** {@return the private data we send} */
    public ConnectPrivateData privateData() {
        return ConnectPrivateData.of(inlineSend, inlineReceive, false);
    }
}
