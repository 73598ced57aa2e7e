package org.panamardma.netty;

import io.netty.channel.EventLoop;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Tasks a channel schedules on its event loop whose failure must reach someone. Netty keeps a scheduled task's
 * exception in the {@code ScheduledFuture} it returns and nowhere else (no log, no {@code exceptionCaught}); these
 * channels keep no such future, so a task that threw would be lost: a stream start probe round that failed so left
 * the connect to wait for its deadline (before f44fe1e).
 */
final class LoopTasks {
    private LoopTasks() {}

    /**
     * Runs {@code task} on {@code loop} after {@code delay}; an unchecked exception it throws goes to
     * {@code onFailure}, on the loop.
     */
    static void schedule(
            EventLoop loop, Runnable task, long delay, TimeUnit unit, Consumer<RuntimeException> onFailure) {
        // the future holds nothing the wrapper does not hand to onFailure; cancelling is not needed by any caller
        var _ = loop.schedule(
                () -> {
                    try {
                        task.run();
                    } catch (RuntimeException e) {
                        onFailure.accept(e);
                    }
                },
                delay,
                unit);
    }
}
