package org.panamardma.oncrpc4j;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Objects;
import org.panamardma.oncrpc.ReplyResources;
import org.panamardma.oncrpc.limits.MemoryBudget;

/**
 * The memory a reply's file chunk ({@code Xdr#xdrEncodeFileChunk}) is read into before it goes out: over TCP
 * oncrpc4j hands the file region to the socket ({@code FileChannel.transferTo}), over RDMA the data must be in memory
 * the device can read. A server-wide budget bounds it, as the RPC-over-RDMA server bounds its own call memory: a
 * reply waits up to {@code wait} for memory other replies hold, then is refused (answered SYSTEM_ERR).
 *
 * <p>Inside a transport's {@link ReplyResources} scope (every call the RPC-over-RDMA server runs) the data goes into
 * native memory, which the RDMA Write into the client's Write chunk registers where it is (no further copy), and is
 * freed with its budget once the reply's chunks have moved; outside one, into the heap, freed by the collector.
 */
final class FileChunkMemory {
    /** A file chunk that could not have memory. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message, null, false, false);
        }
    }

    private final MemoryBudget budget;
    private final long waitNanos;

    /**
     * @param limit the most bytes all replies' file chunks may hold at once; also the largest one
     * @param wait how long a reply waits for memory others hold
     */
    FileChunkMemory(long limit, Duration wait) {
        this.budget = MemoryBudget.of("file chunks", limit);
        this.waitNanos = Objects.requireNonNull(wait, "wait").toNanos();
    }

    /** @return the budget (used, peak, refusals) */
    MemoryBudget budget() {
        return budget;
    }

    /**
     * Memory for {@code bytes} of file data, given back when the reply has gone (or, outside a transport's scope,
     * at once: the heap segment is the collector's).
     *
     * @throws Refused if the budget could not give it within the wait
     */
    MemorySegment take(int bytes) throws Refused {
        if (bytes > budget.limit()) {
            throw new Refused("a file chunk of " + bytes + " bytes, the most is " + budget.limit());
        }
        boolean taken;
        try {
            taken = budget.acquire(bytes, waitNanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            taken = false;
        }
        if (!taken) {
            throw new Refused("no memory for a file chunk of " + bytes + " bytes: " + budget);
        }
        if (!ReplyResources.available()) {
            budget.release(bytes);
            return MemorySegment.ofArray(new byte[bytes]);
        }
        // Confined: the call's thread reads the file into it, encodes the reply and RDMA-writes it, and closes it
        // when its ReplyResources scope ends, all on that one thread.
        Arena arena = Arena.ofConfined();
        try {
            MemorySegment segment = arena.allocate(Math.max(bytes, 1), 8).asSlice(0, bytes);
            ReplyResources.holdUntilSent(() -> {
                arena.close();
                budget.release(bytes);
            });
            return segment;
        } catch (RuntimeException | Error e) {
            arena.close();
            budget.release(bytes);
            throw e;
        }
    }
}
