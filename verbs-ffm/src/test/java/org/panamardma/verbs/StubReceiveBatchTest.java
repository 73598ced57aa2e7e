package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.panamardma.verbs.ffi.StubProvider;
import org.panamardma.verbs.ffi.StubProviderAssumption;

/**
 * {@link QueuePair#postReceives}: a batch of receives in one {@code ibv_post_recv}, on the stub provider's device,
 * which walks the request list as a provider does, counts every receive posted (none is ever consumed: no peer
 * sends) and refuses the first beyond the receive queue's depth with ENOMEM, returning it as the bad request. So
 * the number a batch of several calls fits, and which request the failure names, prove the list is linked, cut at
 * the batch's end and linked again. Runs in the surefire execution {@code stub-provider}.
 */
class StubReceiveBatchTest {
    private static final int DEPTH = 10;
    private Context context;
    private QueuePair qp;
    private MemoryRegion buffers;

    @BeforeEach
    void open() throws Exception {
        StubProviderAssumption.load();
        context = Context.open(StubProvider.DEVICE);
        ProtectionDomain pd = context.allocateProtectionDomain();
        buffers = pd.allocate(64L * 256, Set.of(Access.LOCAL_WRITE));
        CompletionQueue cq = context.createCompletionQueue(64, null, false);
        PreparedQueuePair prepared =
                pd.queuePair().completionQueue(cq).receiveQueueDepth(DEPTH).prepare();
        qp = prepared.connect(prepared.endpoint());
    }

    @AfterEach
    void close() {
        if (context != null) {
            context.close();
        }
    }

    private static long[] ids(int n, long first) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = first + i;
        }
        return a;
    }

    private static long[] offsets(int n) {
        long[] a = new long[n];
        for (int i = 0; i < n; i++) {
            a[i] = 256L * i;
        }
        return a;
    }

    @Test
    void batchesFillTheReceiveQueueExactlyAndTheOverflowNamesHowManyWerePosted() throws Exception {
        qp.postReceives(ids(4, 0), buffers, offsets(4), 256, 4);
        qp.postReceives(ids(4, 4), buffers, offsets(4), 256, 3); // count below the arrays' length
        // 7 posted of 10: a batch of 5 posts 3, then the provider refuses the 4th request of the list
        RdmaException full =
                assertThrows(RdmaException.class, () -> qp.postReceives(ids(5, 8), buffers, offsets(5), 256, 5));
        assertEquals(Errno.ENOMEM, full.errno(), full.getMessage());
        assertTrue(full.getMessage().contains("a batch of 5: 3 posted before the one refused"), full.getMessage());
        assertTrue(full.getMessage().contains("receive queue is full"), full.getMessage());
        // the list was linked again after the cut: a later batch is walked from its first request
        RdmaException still =
                assertThrows(RdmaException.class, () -> qp.postReceives(ids(2, 20), buffers, offsets(2), 256, 2));
        assertTrue(still.getMessage().contains("a batch of 2: 0 posted"), still.getMessage());
        assertThrows(RdmaException.class, () -> qp.postReceive(30, buffers, 0, 256), "and single posts agree");
    }

    @Test
    void aBatchAsLargeAsTheMaximumIsOneListAndBadArgumentsPostNothing() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> qp.postReceives(ids(1, 0), buffers, offsets(1), 256, 0));
        assertThrows(IllegalArgumentException.class, () -> qp.postReceives(ids(2, 0), buffers, offsets(1), 256, 2));
        assertThrows(
                IllegalArgumentException.class,
                () -> qp.postReceives(ids(65, 0), buffers, offsets(65), 16, QueuePair.MAX_RECEIVE_BATCH + 1));
        long[] outside = offsets(3);
        outside[2] = 64L * 256; // the third receive would lie past the region's end
        assertThrows(IndexOutOfBoundsException.class, () -> qp.postReceives(ids(3, 0), buffers, outside, 256, 3));
        // nothing was posted by the refused calls: the whole depth is still free
        qp.postReceives(ids(DEPTH, 0), buffers, offsets(DEPTH), 256, DEPTH);
        RdmaException full = assertThrows(RdmaException.class, () -> qp.postReceive(99, buffers, 0, 256));
        assertEquals(Errno.ENOMEM, full.errno());
    }

    @Test
    void aClosedRegionOrQueuePairIsRefusedBeforeTheProvider() throws Exception {
        MemoryRegion gone = qp.pd.allocate(4096, Set.of(Access.LOCAL_WRITE));
        gone.close();
        assertThrows(IllegalStateException.class, () -> qp.postReceives(ids(1, 0), gone, offsets(1), 64, 1));
        qp.close();
        assertThrows(IllegalStateException.class, () -> qp.postReceives(ids(1, 0), buffers, offsets(1), 64, 1));
    }

    @Test
    void theMaximumBatchPostsInOneCall() throws Exception {
        Context big = context;
        ProtectionDomain pd = big.allocateProtectionDomain();
        MemoryRegion mr = pd.allocate(64L * QueuePair.MAX_RECEIVE_BATCH, Set.of(Access.LOCAL_WRITE));
        CompletionQueue cq = big.createCompletionQueue(256, null, false);
        PreparedQueuePair prepared = pd.queuePair()
                .completionQueue(cq)
                .receiveQueueDepth(QueuePair.MAX_RECEIVE_BATCH + 1)
                .prepare();
        QueuePair wide = prepared.connect(prepared.endpoint());
        long[] offs = new long[QueuePair.MAX_RECEIVE_BATCH];
        for (int i = 0; i < offs.length; i++) {
            offs[i] = 64L * i;
        }
        wide.postReceives(ids(QueuePair.MAX_RECEIVE_BATCH, 0), mr, offs, 64, QueuePair.MAX_RECEIVE_BATCH);
        wide.postReceive(1000, mr, 0, 64); // the one left
        RdmaException full = assertThrows(RdmaException.class, () -> wide.postReceives(ids(1, 0), mr, offs, 64, 1));
        assertTrue(full.getMessage().contains("a batch of 1: 0 posted"), full.getMessage());
    }
}
