package org.panamardma.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.channel.IoEvent;
import io.netty.channel.IoEventLoop;
import io.netty.channel.IoRegistration;

/**
 * The I/O side of a netty-rdma channel, client or server ({@link ChannelIo}, {@link RdmaServerChannel}'s listener):
 * what each does alike as its event loop's {@link RdmaIoHandler} drives it. It registers with the channel's loop and
 * learns that loop's handler; takes its rdma_cm events from {@link #handle}; and closes its channel when the loop
 * asks, through the pipeline ({@link #close()}) or, the loop ending, at once ({@link #closeNow()}).
 */
abstract class ChannelIoHandle implements RdmaIoHandle {
    private final Channel channel;

    ChannelIoHandle(Channel channel) {
        this.channel = channel;
    }

    /** What a channel does once registered, with its loop's handler; what it throws fails the registration. */
    @FunctionalInterface
    interface Registered {
        void with(RdmaIoHandler handler) throws Exception;
    }

    /**
     * Registers this handle with its channel's event loop (a channel's {@code doRegister}): then runs
     * {@code registered} and completes {@code promise}, or fails it with what the loop or {@code registered} threw.
     */
    final void register(ChannelPromise promise, Registered registered) {
        ((IoEventLoop) channel.eventLoop()).register(this).addListener(done -> {
            if (!done.isSuccess()) {
                promise.setFailure(done.cause());
                return;
            }
            try {
                registered.with(RdmaIoHandler.of((IoRegistration) done.getNow()));
            } catch (Throwable t) {
                promise.setFailure(t);
                return;
            }
            promise.setSuccess();
        });
    }

    @Override
    public final void handle(IoRegistration registration, IoEvent event) {
        if (event instanceof CmIoEvent c) {
            cmEvent(c.event());
        }
    }

    @Override
    public final void close() {
        channel.unsafe().close(channel.unsafe().voidPromise());
    }

    @Override
    public final void closeNow() {
        channel.unsafe().closeForcibly();
    }
}
