package org.panamardma.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Writes stream {@code stream} of {@link DeviceTestSupport#fill} once active, in writes of {@code chunk} bytes, for as
 * long as the channel is writable and until {@code total} bytes are written; resumes when the channel is writable
 * again. A writer that is held back is what the flow-control tests watch: {@link #writabilityChanged} sees each turn.
 */
class PatternWriter extends ChannelInboundHandlerAdapter {
    private final int stream;
    private final long total;
    private final int chunk;
    /** Stream bytes handed to the channel so far (read on the channel's event loop only). */
    long written;

    PatternWriter(int stream, long total, int chunk) {
        this.stream = stream;
        this.total = total;
        this.chunk = chunk;
    }

    /** Called on each change of the channel's writability, before writing resumes; nothing by default. */
    void writabilityChanged(ChannelHandlerContext ctx, boolean writable) {}

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        write(ctx);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        boolean writable = ctx.channel().isWritable();
        writabilityChanged(ctx, writable);
        if (writable) {
            write(ctx);
        }
    }

    private void write(ChannelHandlerContext ctx) {
        while (written < total && ctx.channel().isWritable()) {
            int n = (int) Math.min(chunk, total - written);
            ByteBuf b = ctx.alloc().directBuffer(n);
            DeviceTestSupport.fill(b, stream, written, n);
            written += n;
            ctx.write(b).addListener(ChannelFutureListener.FIRE_EXCEPTION_ON_FAILURE);
        }
        ctx.flush();
    }
}
