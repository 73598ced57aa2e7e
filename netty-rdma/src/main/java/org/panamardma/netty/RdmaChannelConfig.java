package org.panamardma.netty;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.socket.DuplexChannelConfig;
import java.util.Map;

/** The options of an {@link RdmaChannel}; the RDMA ones take effect when the connection is made. */
public final class RdmaChannelConfig extends DefaultChannelConfig implements DuplexChannelConfig {
    static final int DEFAULT_DEPTH = 32;
    static final int DEFAULT_BUFFER_SIZE = 16 * 1024;
    static final int DEFAULT_LARGE_WRITE_THRESHOLD = 64 * 1024;
    static final int DEFAULT_MAX_TRANSFER = 1024 * 1024;

    private volatile int receiveQueueDepth = DEFAULT_DEPTH;
    private volatile int sendQueueDepth = DEFAULT_DEPTH;
    private volatile int bufferSize = DEFAULT_BUFFER_SIZE;
    private volatile int largeWriteThreshold = DEFAULT_LARGE_WRITE_THRESHOLD;
    private volatile int maxTransfer = DEFAULT_MAX_TRANSFER;
    private volatile boolean allowHalfClosure;
    /** Whether ALLOCATOR was set (then the channel keeps it instead of its device's registered pool). */
    private volatile boolean userAllocator;

    RdmaChannelConfig(Channel channel) {
        super(channel);
    }

    boolean userAllocator() {
        return userAllocator;
    }

    /** The device's registered pool, once the connection knows its device (unless ALLOCATOR was set). */
    void installAllocator(ByteBufAllocator allocator) {
        super.setAllocator(allocator);
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(
                super.getOptions(),
                RdmaChannelOption.RECEIVE_QUEUE_DEPTH,
                RdmaChannelOption.SEND_QUEUE_DEPTH,
                RdmaChannelOption.BUFFER_SIZE,
                RdmaChannelOption.LARGE_WRITE_THRESHOLD,
                RdmaChannelOption.MAX_TRANSFER,
                ChannelOption.ALLOW_HALF_CLOSURE);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == RdmaChannelOption.RECEIVE_QUEUE_DEPTH) {
            return (T) Integer.valueOf(receiveQueueDepth);
        }
        if (option == RdmaChannelOption.SEND_QUEUE_DEPTH) {
            return (T) Integer.valueOf(sendQueueDepth);
        }
        if (option == RdmaChannelOption.BUFFER_SIZE) {
            return (T) Integer.valueOf(bufferSize);
        }
        if (option == RdmaChannelOption.LARGE_WRITE_THRESHOLD) {
            return (T) Integer.valueOf(largeWriteThreshold);
        }
        if (option == RdmaChannelOption.MAX_TRANSFER) {
            return (T) Integer.valueOf(maxTransfer);
        }
        if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            return (T) Boolean.valueOf(allowHalfClosure);
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == RdmaChannelOption.RECEIVE_QUEUE_DEPTH) {
            receiveQueueDepth =
                    checkRange("RDMA_RECEIVE_QUEUE_DEPTH", (Integer) value, CreditFlow.MIN_RECEIVE_DEPTH, 4096);
        } else if (option == RdmaChannelOption.SEND_QUEUE_DEPTH) {
            sendQueueDepth = checkRange("RDMA_SEND_QUEUE_DEPTH", (Integer) value, 2, 4096);
        } else if (option == RdmaChannelOption.BUFFER_SIZE) {
            bufferSize = checkRange("RDMA_BUFFER_SIZE", (Integer) value, 64, 1 << 20);
        } else if (option == RdmaChannelOption.LARGE_WRITE_THRESHOLD) {
            largeWriteThreshold = checkRange("RDMA_LARGE_WRITE_THRESHOLD", (Integer) value, 0, Integer.MAX_VALUE);
        } else if (option == RdmaChannelOption.MAX_TRANSFER) {
            maxTransfer = checkRange("RDMA_MAX_TRANSFER", (Integer) value, 0, 1 << 30);
        } else if (option == ChannelOption.ALLOW_HALF_CLOSURE) {
            allowHalfClosure = (Boolean) value;
        } else if (option == ChannelOption.SO_KEEPALIVE || option == ChannelOption.TCP_NODELAY) {
            // Accepted so that socket programs (gRPC sets both) configure an RDMA channel without warnings, and
            // without effect: a SEND leaves at once (nothing like Nagle's delay), and an RC queue pair finds a
            // vanished peer by its own retries on the next request while rdma_cm reports a disconnect.
            return true;
        } else {
            return super.setOption(option, value);
        }
        return true;
    }

    static int checkRange(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " " + value + " not in [" + min + ", " + max + "]");
        }
        return value;
    }

    /**
     * Receive buffers posted per connection ({@link RdmaChannelOption#RECEIVE_QUEUE_DEPTH}).
     *
     * @return the receive queue depth
     */
    public int getReceiveQueueDepth() {
        return receiveQueueDepth;
    }

    /**
     * Send buffers per connection ({@link RdmaChannelOption#SEND_QUEUE_DEPTH}).
     *
     * @return the send queue depth
     */
    public int getSendQueueDepth() {
        return sendQueueDepth;
    }

    /**
     * Bytes of each registered send and receive buffer ({@link RdmaChannelOption#BUFFER_SIZE}).
     *
     * @return the buffer size
     */
    public int getBufferSize() {
        return bufferSize;
    }

    /**
     * Message size from which data goes by RDMA WRITE into a buffer the peer grants
     * ({@link RdmaChannelOption#LARGE_WRITE_THRESHOLD}).
     *
     * @return the large-write threshold in bytes
     */
    public int getLargeWriteThreshold() {
        return largeWriteThreshold;
    }

    /**
     * Largest bulk transfer granted at once ({@link RdmaChannelOption#MAX_TRANSFER}).
     *
     * @return the maximum transfer in bytes
     */
    public int getMaxTransfer() {
        return maxTransfer;
    }

    @Override
    public boolean isAllowHalfClosure() {
        return allowHalfClosure;
    }

    @Override
    public RdmaChannelConfig setAllowHalfClosure(boolean allow) {
        this.allowHalfClosure = allow;
        return this;
    }

    @Override
    @Deprecated
    public RdmaChannelConfig setMaxMessagesPerRead(int maxMessagesPerRead) {
        super.setMaxMessagesPerRead(maxMessagesPerRead);
        return this;
    }

    @Override
    public RdmaChannelConfig setWriteSpinCount(int writeSpinCount) {
        super.setWriteSpinCount(writeSpinCount);
        return this;
    }

    @Override
    public RdmaChannelConfig setAllocator(ByteBufAllocator allocator) {
        userAllocator = true;
        super.setAllocator(allocator);
        return this;
    }

    @Override
    public RdmaChannelConfig setRecvByteBufAllocator(io.netty.channel.RecvByteBufAllocator allocator) {
        super.setRecvByteBufAllocator(allocator);
        return this;
    }

    @Override
    public RdmaChannelConfig setAutoRead(boolean autoRead) {
        super.setAutoRead(autoRead);
        return this;
    }

    @Override
    public RdmaChannelConfig setAutoClose(boolean autoClose) {
        super.setAutoClose(autoClose);
        return this;
    }

    @Override
    public RdmaChannelConfig setWriteBufferHighWaterMark(int writeBufferHighWaterMark) {
        super.setWriteBufferHighWaterMark(writeBufferHighWaterMark);
        return this;
    }

    @Override
    public RdmaChannelConfig setWriteBufferLowWaterMark(int writeBufferLowWaterMark) {
        super.setWriteBufferLowWaterMark(writeBufferLowWaterMark);
        return this;
    }

    @Override
    public RdmaChannelConfig setWriteBufferWaterMark(io.netty.channel.WriteBufferWaterMark writeBufferWaterMark) {
        super.setWriteBufferWaterMark(writeBufferWaterMark);
        return this;
    }

    @Override
    public RdmaChannelConfig setMessageSizeEstimator(io.netty.channel.MessageSizeEstimator estimator) {
        super.setMessageSizeEstimator(estimator);
        return this;
    }

    @Override
    public RdmaChannelConfig setConnectTimeoutMillis(int connectTimeoutMillis) {
        super.setConnectTimeoutMillis(connectTimeoutMillis);
        return this;
    }
}
