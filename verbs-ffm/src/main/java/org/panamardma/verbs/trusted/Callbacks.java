package org.panamardma.verbs.trusted;

import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Callbacks whose own failure would otherwise reach nobody. {@code future.whenComplete(action)} hands an exception
 * the action throws only to the future it returns; dropped, that future takes the exception with it (Error Prone's
 * FutureReturnValueIgnored). A scheduled task's exception ends up in its {@code ScheduledFuture} the same way, and a
 * periodic one is silently never run again ({@code ScheduledExecutorService.scheduleWithFixedDelay}). These log it.
 */
public final class Callbacks {
    private static final Logger LOG = LoggerFactory.getLogger(Callbacks.class);

    private Callbacks() {}

    /**
     * Runs {@code action} when {@code future} completes, as {@code whenComplete} does; an exception the action
     * throws is logged as an ERROR naming {@code owner}, not lost with the future {@code whenComplete} returns.
     *
     * @param <T>    the future's value type
     * @param future the future whose completion runs {@code action}
     * @param owner  what the callback belongs to (a connection's name), for the log
     * @param action given the future's value, or its exception; runs on the completing thread
     */
    public static <T> void whenDone(
            CompletableFuture<T> future, String owner, BiConsumer<? super T, ? super Throwable> action) {
        // the future whenComplete returns carries nothing the action did not see or the log below does not record
        var _ = future.whenComplete((v, t) -> {
            try {
                action.accept(v, t);
            } catch (RuntimeException | Error e) {
                LOG.error("{}: a completion callback failed", owner, e);
                throw e;
            }
        });
    }

    /**
     * {@code task}, logging an exception it throws as an ERROR naming {@code owner} instead of letting it end a
     * periodic schedule or vanish into a dropped {@code ScheduledFuture}.
     *
     * @param owner what the task belongs to, for the log
     * @param task  the task to run
     * @return a task that runs {@code task} and logs (and swallows) a RuntimeException it throws
     */
    public static Runnable logging(String owner, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.error("{}: a scheduled task failed", owner, e);
            }
        };
    }
}
