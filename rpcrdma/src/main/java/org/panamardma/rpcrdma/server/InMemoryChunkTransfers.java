package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.panamardma.rpcrdma.RdmaSegment;

/**
 * A client's registered memory played in this JVM, for testing an RPC program's chunk handling (Read chunks, the
 * Write list, a Reply chunk) through {@link RpcRdmaCallHandler} without an RDMA device: regions by handle, each at a
 * base address, and the RDMA Read and Write of RFC 8166 section 3.4 checked as a device checks them (an access outside
 * a region, or to no region, fails the connection: {@link IOException}). The project's own host tests of the server
 * and of the oncrpc4j bridge use it; a user's tests of their own programs can too. Thread-safe.
 */
public final class InMemoryChunkTransfers implements ChunkTransfers {
    /** A user-space address, high, so that an address is never mistaken for an offset or a length. */
    private static final long FIRST_BASE = 0x7f00_0000_0000L;

    /** A gap between regions, so that one region's end is never another's start. */
    private static final long GAP = 4096;

    private record Region(long base, byte[] bytes) {}

    private final Map<Integer, Region> regions = new HashMap<>();
    private final List<String> transfers = new ArrayList<>();
    private int nextHandle = 0x100;
    private long nextBase = FIRST_BASE;
    private long bytesWritten;

    /** A client with no region registered yet. */
    public InMemoryChunkTransfers() {}

    /**
     * Registers a copy of {@code bytes}, as a client registers what a Read chunk will name: handles from 0x100 up, in
     * order.
     *
     * @param bytes the region's first contents
     * @return the segment that covers the whole region
     */
    public synchronized RdmaSegment register(byte[] bytes) {
        int handle = nextHandle++;
        long base = nextBase;
        nextBase += bytes.length + GAP;
        regions.put(handle, new Region(base, bytes.clone()));
        return new RdmaSegment(handle, bytes.length, base);
    }

    /**
     * Registers {@code length} zero bytes, as a client registers what a Write chunk or Reply chunk will name.
     *
     * @param length the region's length in bytes
     * @return the segment that covers the whole region
     */
    public RdmaSegment registerEmpty(int length) {
        return register(new byte[length]);
    }

    /**
     * The contents of a region now.
     *
     * @param segment a segment of the region (its handle is what counts)
     * @return a copy of the region's bytes
     * @throws IllegalArgumentException if no region has the segment's handle
     */
    public synchronized byte[] contents(RdmaSegment segment) {
        Region r = regions.get(segment.handle());
        if (r == null) {
            throw new IllegalArgumentException("no region with handle " + Integer.toHexString(segment.handle()));
        }
        return r.bytes().clone();
    }

    /** {@return the transfers so far, in order: {@code "read N"} or {@code "write N"}, N the bytes moved} */
    public synchronized List<String> transfers() {
        return List.copyOf(transfers);
    }

    /** {@return the bytes written by RDMA Write so far} */
    public synchronized long bytesWritten() {
        return bytesWritten;
    }

    /** An RDMA Read: the segments' bytes, one after the other, into {@code destination}. */
    @Override
    public synchronized void read(List<RdmaSegment> segments, MemorySegment destination) throws IOException {
        long at = 0;
        for (RdmaSegment s : segments) {
            MemorySegment.copy(window(s), 0, destination, at, s.length());
            at += s.length();
        }
        transfers.add("read " + at);
    }

    /**
     * An RDMA Write: {@code source} spread over the segments in order; a zero-length segment takes nothing and the
     * next ones the rest, as the server's own transfers do.
     *
     * @throws IOException when a segment is outside every region, or the segments hold less than {@code source}
     */
    @Override
    public synchronized void write(MemorySegment source, List<RdmaSegment> segments) throws IOException {
        long at = 0;
        for (RdmaSegment s : segments) {
            long n = Math.min(s.length(), source.byteSize() - at);
            if (n == 0) {
                continue;
            }
            MemorySegment.copy(source, at, window(s), 0, n);
            at += n;
        }
        if (at != source.byteSize()) {
            throw new IOException("write of " + source.byteSize() + " bytes into " + at);
        }
        bytesWritten += at;
        transfers.add("write " + at);
    }

    private MemorySegment window(RdmaSegment s) throws IOException {
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
}
