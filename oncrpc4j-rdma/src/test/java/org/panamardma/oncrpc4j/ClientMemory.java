package org.panamardma.oncrpc4j;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.panamardma.rpcrdma.RdmaSegment;
import org.panamardma.rpcrdma.server.ChunkTransfers;

/**
 * A client's registered memory played on the host, for the server's protocol logic without a device: regions by
 * handle at base addresses; RDMA Read and Write check handle and bounds as a device does (an access outside fails
 * the connection: IOException). Counts the bytes moved each way.
 */
final class ClientMemory implements ChunkTransfers {
    private record Region(long base, byte[] bytes) {}

    private final Map<Integer, Region> regions = new HashMap<>();
    private int nextHandle = 0x100;
    private long nextBase = 0x7f00_0000_0000L;
    final AtomicInteger reads = new AtomicInteger();
    final AtomicInteger writes = new AtomicInteger();
    long bytesWritten;

    /** Registers a copy of {@code bytes}; @return its segment */
    synchronized RdmaSegment register(byte[] bytes) {
        int handle = nextHandle++;
        long base = nextBase;
        nextBase += bytes.length + 4096;
        regions.put(handle, new Region(base, bytes.clone()));
        return new RdmaSegment(handle, bytes.length, base);
    }

    /** Registers {@code length} zero bytes for the server to write. */
    RdmaSegment registerEmpty(int length) {
        return register(new byte[length]);
    }

    /** @return the region's bytes now */
    synchronized byte[] contents(RdmaSegment segment) {
        return regions.get(segment.handle()).bytes().clone();
    }

    private synchronized MemorySegment at(RdmaSegment s) throws IOException {
        Region r = regions.get(s.handle());
        if (r == null) {
            throw new IOException("no region with handle " + Integer.toHexString(s.handle()));
        }
        long off = s.offset() - r.base();
        if (off < 0 || off + s.length() > r.bytes().length) {
            throw new IOException("access outside region " + Integer.toHexString(s.handle()));
        }
        return MemorySegment.ofArray(r.bytes()).asSlice(off, s.length());
    }

    @Override
    public void read(List<RdmaSegment> segments, MemorySegment destination) throws IOException {
        long at = 0;
        for (RdmaSegment s : segments) {
            MemorySegment.copy(at(s), 0, destination, at, s.length());
            at += s.length();
        }
        reads.incrementAndGet();
    }

    @Override
    public void write(MemorySegment source, List<RdmaSegment> segments) throws IOException {
        long at = 0;
        for (RdmaSegment s : segments) {
            long n = Math.min(s.length(), source.byteSize() - at);
            if (n <= 0) {
                break;
            }
            MemorySegment.copy(source, at, at(s), 0, n);
            at += n;
        }
        if (at != source.byteSize()) {
            throw new IOException("write of " + source.byteSize() + " bytes into " + at);
        }
        writes.incrementAndGet();
        synchronized (this) {
            bytesWritten += at;
        }
    }
}
