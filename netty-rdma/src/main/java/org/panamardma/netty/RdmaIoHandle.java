package org.panamardma.netty;

import io.netty.channel.IoHandle;
import org.panamardma.verbs.WorkCompletions;
import org.panamardma.verbs.cm.CmEvent;

/**
 * What an {@link RdmaIoHandler} drives: the I/O side of an RDMA channel. Completions are handed over directly (one
 * call per completion, nothing allocated); connection-manager events arrive as {@link CmIoEvent}s through
 * {@link #handle}, or, for the ids of a server's connections, from the server's loop by {@link #cmEvent}.
 */
interface RdmaIoHandle extends IoHandle {
    /** Completion {@code i} of {@code wc} (valid during the call only), on the handle's loop. */
    void completion(WorkCompletions wc, int i);

    /** After the handle's CQ was polled dry and armed again. */
    void completionsDrained();

    /** An rdma_cm event of one of the handle's ids; may be called on another loop (the server's). */
    void cmEvent(CmEvent event);

    /**
     * Closes at once, without pipeline events: the loop is ending and can run no more tasks ({@link #close()} fires
     * channelInactive through tasks of the loop).
     */
    default void closeNow() throws Exception {
        close();
    }

    /** An rdma_cm event wrapped for {@link IoHandle#handle}. */
    record CmIoEvent(CmEvent event) implements io.netty.channel.IoEvent {}
}
