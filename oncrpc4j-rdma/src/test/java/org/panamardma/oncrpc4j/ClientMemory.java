package org.panamardma.oncrpc4j;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.server.ChunkTransfers;
import org.panamardma.testing.PeerMemory;

/**
 * A client's registered memory played on the host ({@link PeerMemory}), for the bridge's protocol logic without a
 * device; counts the bytes the server wrote. rpcrdma's FakeTransfers adapts the same memory for its own tests: a
 * test class of rpcrdma's package cannot be seen from here.
 */
final class ClientMemory implements ChunkTransfers {
    private final PeerMemory memory = new PeerMemory();
    private final AtomicLong written = new AtomicLong();

    /** Registers a copy of {@code bytes}; @return its segment */
    RdmaSegment register(byte[] bytes) {
        PeerMemory.Registration r = memory.register(bytes);
        return new RdmaSegment(r.handle(), r.length(), r.base());
    }

    /** Registers {@code length} zero bytes for the server to write. */
    RdmaSegment registerEmpty(int length) {
        return register(new byte[length]);
    }

    /** @return the region's bytes now */
    byte[] contents(RdmaSegment segment) {
        return memory.contents(segment.handle());
    }

    /** @return the bytes the server has written so far */
    long bytesWritten() {
        return written.get();
    }

    @Override
    public void read(List<RdmaSegment> segments, MemorySegment destination) throws IOException {
        memory.read(peer(segments), destination);
    }

    @Override
    public void write(MemorySegment source, List<RdmaSegment> segments) throws IOException {
        written.addAndGet(memory.write(source, peer(segments)));
    }

    private static List<PeerMemory.Segment> peer(List<RdmaSegment> segments) {
        return segments.stream()
                .map(s -> new PeerMemory.Segment(s.handle(), s.length(), s.offset()))
                .toList();
    }
}
