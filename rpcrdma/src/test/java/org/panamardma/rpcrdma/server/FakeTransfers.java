package org.panamardma.rpcrdma.server;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.testing.PeerMemory;

/**
 * The client's registered memory, played on the host ({@link PeerMemory}: RDMA Read and Write check the handle and
 * the bounds as a device would), with a log of each transfer's size.
 */
final class FakeTransfers implements ChunkTransfers {
    private final PeerMemory memory = new PeerMemory();
    final List<String> log = new ArrayList<>();

    /** Registers a copy of {@code bytes}; @return its segment */
    RdmaSegment register(byte[] bytes) {
        PeerMemory.Registration r = memory.register(bytes);
        return new RdmaSegment(r.handle(), r.length(), r.base());
    }

    /** Registers {@code length} zero bytes to be written. */
    RdmaSegment registerEmpty(int length) {
        return register(new byte[length]);
    }

    /** The current content of the region of {@code segment}. */
    byte[] contents(RdmaSegment segment) {
        return memory.contents(segment.handle());
    }

    @Override
    public void read(List<RdmaSegment> segments, MemorySegment destination) throws IOException {
        log.add("read " + memory.read(peer(segments), destination));
    }

    @Override
    public void write(MemorySegment source, List<RdmaSegment> segments) throws IOException {
        log.add("write " + memory.write(source, peer(segments)));
    }

    /** The segments as PeerMemory takes them. */
    static List<PeerMemory.Segment> peer(List<RdmaSegment> segments) {
        return segments.stream()
                .map(s -> new PeerMemory.Segment(s.handle(), s.length(), s.offset()))
                .toList();
    }

    static byte[] bytes(MemorySegment s) {
        return s.toArray(JAVA_BYTE);
    }
}
