package org.panamardma.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalIoHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A task a channel schedules on its event loop (the stream start probe's next round, the end of a lingering close)
 * hands an exception it throws to its owner, on the loop, where Netty alone keeps it in a {@code ScheduledFuture}
 * nobody reads. The loop is a real Netty 4.2 I/O event loop (the kind {@link RdmaIoHandler} runs on, here with the
 * local transport's handler), so what is shown is Netty's own behaviour. The probe's scheduling before f44fe1e
 * ({@code loop.schedule(this::probe, ...)} alone) fails the first test: its failure never arrives.
 */
class LoopTasksTest {
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());
    private final EventLoop loop = group.next();

    @AfterEach
    void shutdown() throws InterruptedException {
        assertTrue(group.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(30, TimeUnit.SECONDS));
    }

    @Test
    void aTaskThatThrowsHandsItsFailureToItsOwnerOnTheLoop() throws Exception {
        IllegalStateException broken = new IllegalStateException("the probe round broke");
        CompletableFuture<RuntimeException> reported = new CompletableFuture<>();
        CompletableFuture<Boolean> onLoop = new CompletableFuture<>();
        LoopTasks.schedule(
                loop,
                () -> {
                    throw broken;
                },
                1,
                TimeUnit.MILLISECONDS,
                e -> {
                    onLoop.complete(loop.inEventLoop());
                    reported.complete(e);
                });
        // a bound for a failure only (the report comes within milliseconds); the verdict is what arrives
        assertSame(broken, reported.get(30, TimeUnit.SECONDS));
        assertTrue(onLoop.get(), "reported on the event loop, where the channel's state may be touched");
    }

    @Test
    void aTaskThatRunsWellReportsNothing() throws Exception {
        List<RuntimeException> failures = new ArrayList<>();
        CompletableFuture<Void> ran = new CompletableFuture<>();
        LoopTasks.schedule(loop, () -> ran.complete(null), 1, TimeUnit.MILLISECONDS, failures::add);
        ran.get(30, TimeUnit.SECONDS);
        // a task queued behind it on the same single-threaded loop sees whether anything was reported
        CompletableFuture<Integer> seen = new CompletableFuture<>();
        var _ = loop.submit(() -> seen.complete(failures.size()));
        assertEquals(0, seen.get(30, TimeUnit.SECONDS));
    }
}
