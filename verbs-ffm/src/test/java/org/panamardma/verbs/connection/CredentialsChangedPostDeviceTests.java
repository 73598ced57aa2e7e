package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.panamardma.verbs.connection.ConnectionDeviceTests.OPTIONS;
import static org.panamardma.verbs.connection.ConnectionDeviceTests.bytes;
import static org.panamardma.verbs.connection.ConnectionDeviceTests.region;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.verbs.ChangedCredentials;
import org.panamardma.verbs.DoorbellRefusedException;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.connection.ConnectionDeviceTests.Pair;

/**
 * A connection whose request's doorbell the kernel refused ends at once, on every transport. rxe and siw ring their
 * doorbell with a {@code write()} to the device's file, which the kernel refuses from a thread whose credentials
 * changed after the device was opened, even changed back (include/rdma/ib.h, {@code ib_safe_file_access}). The
 * request is on the send queue by then: rxe would carry it out at the next doorbell, out of its order with what the
 * caller was told; siw's queue looks busy to every later post after it, so the queue pair sent nothing more and its
 * requests only timed out (tried on 2026-11-29, before the connection ended itself). So the connection is marked
 * failed and disconnected from its poller thread; the refused request's future says how it ended, later requests
 * fail at once, and the peer sees the disconnect. Subclassed per transport.
 */
abstract class CredentialsChangedPostDeviceTests {
    /** What the provider's refusal says (rxe: EACCES and the credentials rule; siw: -1 and its doorbell). */
    abstract String refusalText();

    @Test
    void aRefusedDoorbellEndsTheConnectionAndSaysWhy(RdmaTestDevice device) throws Exception {
        try (Pair p = new Pair(device, OPTIONS)) {
            MemoryRegion target = region(p.serverSide, new byte[16]);
            MemoryRegion source = region(p.client, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
            // before: a WRITE from a thread that kept its credentials moves its bytes
            p.client.write(source, 0, 8, target.address(), target.rkey()).get(30, TimeUnit.SECONDS);
            assertArrayEquals(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, bytes(target, 0, 8));

            CompletableFuture<CompletableFuture<Void>> posted = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                try {
                    ChangedCredentials.onThisThread();
                    posted.complete(p.client.write(source, 8, 8, target.address() + 8, target.rkey()));
                } catch (Throwable e) {
                    posted.completeExceptionally(e);
                }
            });
            CompletableFuture<Void> refused = posted.get(30, TimeUnit.SECONDS);
            // the connection ends: its own end and the peer's, within the testbed's few seconds, not the 90 s the
            // requests' timeout would take
            p.client.disconnected().get(30, TimeUnit.SECONDS);
            p.serverSide.disconnected().get(30, TimeUnit.SECONDS);
            // the refused request says how it really ended: flushed by the queue pair's end (what is seen), or done,
            // if the device carried it out first (rxe would, were its requester run meanwhile, e.g. by a timer)
            try {
                refused.get(30, TimeUnit.SECONDS);
                assertArrayEquals(new byte[] {9, 10, 11, 12, 13, 14, 15, 16}, bytes(target, 8, 8), "reported done");
            } catch (ExecutionException e) {
                ConnectionClosedException closed =
                        assertInstanceOf(ConnectionClosedException.class, e.getCause(), String.valueOf(e.getCause()));
                assertTrue(closed.getMessage().contains("the send queue's doorbell was refused"), closed.getMessage());
                assertTrue(closed.getMessage().contains(refusalText()), closed.getMessage());
            }

            // a request from a thread that kept its credentials fails at once, with the refusal as the cause
            ExecutionException next = assertThrows(
                    ExecutionException.class,
                    () -> p.client
                            .write(source, 0, 8, target.address(), target.rkey())
                            .get(5, TimeUnit.SECONDS));
            ConnectionClosedException cause =
                    assertInstanceOf(ConnectionClosedException.class, next.getCause(), String.valueOf(next.getCause()));
            assertTrue(cause.getMessage().contains("the send queue's doorbell was refused"), cause.getMessage());
            assertTrue(cause.getMessage().contains(refusalText()), cause.getMessage());
            assertInstanceOf(DoorbellRefusedException.class, cause.getCause(), "the provider's refusal");
        }
    }
}
