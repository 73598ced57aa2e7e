package org.panamardma.netty;

import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Set;
import org.panamardma.verbs.Access;
import org.panamardma.verbs.CompletionChannel;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.ProtectionDomain;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.StreamStartProbe;

/**
 * What one event loop keeps per device: a protection domain its connections share (so that the registered pool
 * serves them all), the completion channel their CQs signal (one fd in the loop's wait), the registered pool, and on
 * Soft-iWARP the stream start word. Made on first use by a connection on the device, closed with the loop.
 */
final class DeviceResources implements AutoCloseable {
    /** Where in {@link #streamStart} the word peers read is, and its length. */
    static final long WORD_OFFSET = 0;

    static final int WORD_LENGTH = 8;
    /** Where in {@link #streamStart} this side's probes land (what they read is never looked at). */
    static final long SINK_OFFSET = 8;

    final Context context;
    final ProtectionDomain pd;
    final CompletionChannel channel;
    final SlabPool pool;
    /**
     * Soft-iWARP devices only (null elsewhere): 8 constant bytes the peers of this loop's connections may READ, named
     * in the private data, and the sink of this side's probes. A client's stream start probe ({@link ClientConnector})
     * reads these 8 bytes instead of none: siw answers a zero-length READ that reaches a queue pair busy sending with
     * the length and memory of the request it sent before, which ends the connection (see {@link ClientConnector}).
     * Registered {@code REMOTE_READ} so that peers can read the word; what they can read is only these
     * 16 bytes: the protocol's magic and what other sides' words put in the sink.
     */
    final MemoryRegion streamStart;

    private DeviceResources(
            Context context, ProtectionDomain pd, CompletionChannel channel, SlabPool pool, MemoryRegion streamStart) {
        this.context = context;
        this.pd = pd;
        this.channel = channel;
        this.pool = pool;
        this.streamStart = streamStart;
    }

    static DeviceResources open(Context context, long poolLimitBytes) throws RdmaException {
        ProtectionDomain pd = context.allocateProtectionDomain();
        CompletionChannel channel = null;
        MemoryRegion streamStart = null;
        try {
            channel = context.createCompletionChannel();
            if (StreamStartProbe.needed(context)) {
                streamStart = pd.allocate(SINK_OFFSET + WORD_LENGTH, Set.of(Access.LOCAL_WRITE, Access.REMOTE_READ));
                // big-endian, as the private data: the magic's bytes, then the version
                streamStart
                        .segment()
                        .set(
                                ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN),
                                WORD_OFFSET,
                                ConnectPrivateData.WORD);
            }
            return new DeviceResources(context, pd, channel, new SlabPool(pd, poolLimitBytes), streamStart);
        } catch (RdmaException | RuntimeException e) {
            if (streamStart != null) {
                streamStart.close();
            }
            if (channel != null) {
                channel.close();
            }
            pd.close();
            throw e;
        }
    }

    @Override
    public void close() {
        pool.close();
        if (streamStart != null) {
            streamStart.close();
        }
        channel.close();
        pd.close();
    }
}
