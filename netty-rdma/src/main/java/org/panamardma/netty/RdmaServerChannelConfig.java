package org.panamardma.netty;

import io.netty.channel.ChannelOption;
import io.netty.channel.DefaultChannelConfig;
import io.netty.channel.ServerChannelRecvByteBufAllocator;
import java.util.Map;

/** The options of an {@link RdmaServerChannel}: {@code SO_BACKLOG} and {@link RdmaChannelOption#MAX_CONNECTIONS}. */
public final class RdmaServerChannelConfig extends DefaultChannelConfig {
    private volatile int backlog = 128;
    private volatile int maxConnections = 1024;

    RdmaServerChannelConfig(RdmaServerChannel channel) {
        super(channel, new ServerChannelRecvByteBufAllocator());
    }

    @Override
    public Map<ChannelOption<?>, Object> getOptions() {
        return getOptions(super.getOptions(), ChannelOption.SO_BACKLOG, RdmaChannelOption.MAX_CONNECTIONS);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T getOption(ChannelOption<T> option) {
        if (option == ChannelOption.SO_BACKLOG) {
            return (T) Integer.valueOf(backlog);
        }
        if (option == RdmaChannelOption.MAX_CONNECTIONS) {
            return (T) Integer.valueOf(maxConnections);
        }
        return super.getOption(option);
    }

    @Override
    public <T> boolean setOption(ChannelOption<T> option, T value) {
        validate(option, value);
        if (option == ChannelOption.SO_BACKLOG) {
            backlog = RdmaChannelConfig.checkRange("SO_BACKLOG", (Integer) value, 1, 65535);
        } else if (option == RdmaChannelOption.MAX_CONNECTIONS) {
            maxConnections = RdmaChannelConfig.checkRange("RDMA_MAX_CONNECTIONS", (Integer) value, 1, 1 << 20);
        } else {
            return super.setOption(option, value);
        }
        return true;
    }

    /**
     * Connection requests rdma_listen queues before they are accepted ({@code SO_BACKLOG}).
     *
     * @return the backlog
     */
    public int getBacklog() {
        return backlog;
    }

    /**
     * Connections this server holds at once; further requests are rejected.
     *
     * @return the connection cap
     */
    public int getMaxConnections() {
        return maxConnections;
    }
}
