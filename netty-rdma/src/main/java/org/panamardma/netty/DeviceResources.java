package org.panamardma.netty;

import org.panamardma.verbs.CompletionChannel;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.RdmaException;

/**
 * What one event loop keeps per device: a protection domain its connections share (so that the registered pool
 * serves them all), the completion channel their CQs signal (one fd in the loop's wait), and the registered pool.
 * Made on first use by a connection on the device, closed with the loop.
 */
final class DeviceResources implements AutoCloseable {
    final Context context;
    final ProtectionDomain pd;
    final CompletionChannel channel;
    final SlabPool pool;

    private DeviceResources(Context context, ProtectionDomain pd, CompletionChannel channel, SlabPool pool) {
        this.context = context;
        this.pd = pd;
        this.channel = channel;
        this.pool = pool;
    }

    static DeviceResources open(Context context, long poolLimitBytes) throws RdmaException {
        ProtectionDomain pd = context.allocateProtectionDomain();
        try {
            CompletionChannel channel = context.createCompletionChannel();
            return new DeviceResources(context, pd, channel, new SlabPool(pd, poolLimitBytes));
        } catch (RdmaException | RuntimeException e) {
            pd.close();
            throw e;
        }
    }

    @Override
    public void close() {
        pool.close();
        channel.close();
        pd.close();
    }
}
