package org.panamardma.verbs.connection;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.panamardma.verbs.connection.ConnectionDeviceTests.OPTIONS;
import static org.panamardma.verbs.connection.ConnectionDeviceTests.region;

import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.verbs.ChangedCredentials;
import org.panamardma.verbs.MemoryRegion;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.connection.ConnectionDeviceTests.Pair;

/**
 * Soft-iWARP rings its doorbell with a {@code write()} to the device's file, which the kernel refuses from a thread
 * whose credentials changed after the device was opened, even changed back (include/rdma/ib.h,
 * {@code ib_safe_file_access}); siw then returns -1, its errno lost. The post says what that means, and what follows
 * is pinned here because it is worse than on rxe ({@code BadInputDeviceTest}): the refused request stays in siw's send
 * queue, which looks busy to every later post, so none rings the doorbell and the queue pair sends nothing more. So a
 * thread that ever takes on another identity (the NFS server's caller threads) must never post.
 */
@RdmaDeviceTest(transport = Transport.IWARP)
class IwarpCredentialsChangedPostDeviceTest {
    @Test
    void aRefusedDoorbellSaysWhyAndSiwsSendQueueSendsNothingMore(RdmaTestDevice device) throws Exception {
        try (Pair p = new Pair(device, OPTIONS)) {
            MemoryRegion target = region(p.serverSide, new byte[16]);
            MemoryRegion source = region(p.client, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
            CompletableFuture<CompletableFuture<Void>> posted = new CompletableFuture<>();
            Thread.ofPlatform().start(() -> {
                try {
                    ChangedCredentials.onThisThread();
                    posted.complete(p.client.write(source, 0, 8, target.address(), target.rkey()));
                } catch (Throwable e) {
                    posted.completeExceptionally(e);
                }
            });
            CompletableFuture<Void> refused = posted.get(30, TimeUnit.SECONDS);
            ExecutionException e = assertThrows(ExecutionException.class, () -> refused.get(30, TimeUnit.SECONDS));
            RdmaException cause = assertInstanceOf(RdmaException.class, e.getCause(), String.valueOf(e.getCause()));
            assertEquals(0, cause.errno(), "siw's -1 carries no errno: " + cause.getMessage());
            assertTrue(
                    cause.getMessage().contains("siw does when the kernel refuses its doorbell"), cause.getMessage());

            // the next post, from a thread that kept its credentials, is taken but rings no doorbell
            CompletableFuture<Void> next = p.client.write(source, 8, 8, target.address() + 8, target.rkey());
            assertThrows(TimeoutException.class, () -> next.get(3, TimeUnit.SECONDS), "siw sent nothing more");
            assertArrayEquals(new byte[16], target.segment().toArray(ValueLayout.JAVA_BYTE), "no byte moved");
        }
    }
}
