package org.panamardma.netty;

import io.netty.channel.ChannelOption;

/**
 * The RDMA channels' own options, beside Netty's ({@code CONNECT_TIMEOUT_MILLIS}, {@code ALLOW_HALF_CLOSURE},
 * {@code WRITE_BUFFER_WATER_MARK}, {@code AUTO_READ}, {@code ALLOCATOR}, {@code SO_BACKLOG} on the server).
 * Per connection the pinned memory is {@code (RECEIVE_QUEUE_DEPTH + SEND_QUEUE_DEPTH) * BUFFER_SIZE} plus at most one
 * granted bulk transfer of {@code MAX_TRANSFER} bytes from the event loop's registered pool.
 *
 * @param <T> the type of the option's value
 */
public final class RdmaChannelOption<T> extends ChannelOption<T> {
    /** Receive buffers posted per connection: the credits the peer gets (4..4096; default 32). */
    public static final ChannelOption<Integer> RECEIVE_QUEUE_DEPTH =
            valueOf(RdmaChannelOption.class, "RDMA_RECEIVE_QUEUE_DEPTH");
    /** Send buffers per connection: SENDs in flight at once (2..4096; default 32). */
    public static final ChannelOption<Integer> SEND_QUEUE_DEPTH =
            valueOf(RdmaChannelOption.class, "RDMA_SEND_QUEUE_DEPTH");
    /** Bytes of each send and receive buffer: the largest SEND, header included (64..1 MiB; default 16 KiB). */
    public static final ChannelOption<Integer> BUFFER_SIZE = valueOf(RdmaChannelOption.class, "RDMA_BUFFER_SIZE");
    /**
     * Writes of at least this many bytes (of one {@code ByteBuf}) go by RDMA WRITE into memory the peer grants for
     * that transfer, the rest by SENDs of the send buffers; 0: never by WRITE (default 64 KiB, see the module README
     * for the measurement).
     */
    public static final ChannelOption<Integer> LARGE_WRITE_THRESHOLD =
            valueOf(RdmaChannelOption.class, "RDMA_LARGE_WRITE_THRESHOLD");
    /**
     * The largest transfer this side grants the peer to WRITE at once (and so the most memory one connection takes
     * from the pool for it); larger writes of the peer come in several transfers; 0: none (default 1 MiB).
     */
    public static final ChannelOption<Integer> MAX_TRANSFER = valueOf(RdmaChannelOption.class, "RDMA_MAX_TRANSFER");
    /** Server: the most connections at once; a request beyond it is rejected (default 1024). */
    public static final ChannelOption<Integer> MAX_CONNECTIONS =
            valueOf(RdmaChannelOption.class, "RDMA_MAX_CONNECTIONS");

    @SuppressWarnings("deprecation")
    private RdmaChannelOption() {
        super(null);
    }
}
