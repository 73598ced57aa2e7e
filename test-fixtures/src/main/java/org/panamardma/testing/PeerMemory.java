package org.panamardma.testing;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A peer's registered memory played on the host, for a server's chunk logic without a device: regions by handle, each
 * at a base address, and the RDMA Read and Write of RFC 8166 section 3.4 checked as a device checks them (an access
 * outside a region, or to no region, fails the connection: IOException). The tests' {@code ChunkTransfers} are thin
 * adapters of it (rpcrdma's FakeTransfers, oncrpc4j-rdma's ClientMemory): this module cannot name rpcrdma's
 * segment type, so a segment comes as a {@link Segment}. Thread-safe.
 */
public final class PeerMemory {
    /** A user-space address, high, so that an address is never mistaken for an offset or a length. */
    private static final long FIRST_BASE = 0x7f00_0000_0000L;

    /** A gap between regions, so that one region's end is never another's start. */
    private static final long GAP = 4096;

    private record Region(long base, byte[] bytes) {}

    /** A peer with no region registered yet. */
    public PeerMemory() {}

    /**
     * A registered region, as a peer advertises it.
     *
     * @param handle its steering tag (the R_key)
     * @param length its length in bytes
     * @param base its first address
     */
    public record Registration(int handle, int length, long base) {}

    /**
     * A segment of a chunk, as RFC 8166 section 3.4.3 puts it on the wire (rpcrdma's {@code RdmaSegment}, which this
     * module cannot name).
     *
     * @param handle the region's handle
     * @param length the number of bytes
     * @param address the first address
     */
    public record Segment(int handle, long length, long address) {}

    private final Map<Integer, Region> regions = new HashMap<>();
    private int nextHandle = 0x100;
    private long nextBase = FIRST_BASE;

    /**
     * Registers a copy of {@code bytes}: handles from 0x100 up, in order.
     *
     * @param bytes the region's first contents
     * @return the registration
     */
    public synchronized Registration register(byte[] bytes) {
        int handle = nextHandle++;
        long base = nextBase;
        nextBase += bytes.length + GAP;
        regions.put(handle, new Region(base, bytes.clone()));
        return new Registration(handle, bytes.length, base);
    }

    /**
     * The contents of a region now.
     *
     * @param handle the region's handle
     * @return a copy of its bytes
     */
    public synchronized byte[] contents(int handle) {
        return regions.get(handle).bytes().clone();
    }

    /**
     * An RDMA Read: the segments' bytes, one after the other, into {@code destination}.
     *
     * @param segments what to read
     * @param destination where to
     * @return the bytes read
     * @throws IOException when a segment is outside every region
     */
    public long read(List<Segment> segments, MemorySegment destination) throws IOException {
        long at = 0;
        for (Segment s : segments) {
            MemorySegment.copy(window(s), 0, destination, at, s.length());
            at += s.length();
        }
        return at;
    }

    /**
     * An RDMA Write: {@code source} spread over the segments in order; a zero-length segment takes nothing and the
     * next ones the rest, as the server's own transfers do.
     *
     * @param source what to write
     * @param segments where to
     * @return the bytes written: all of {@code source}
     * @throws IOException when a segment is outside every region, or the segments hold less than {@code source}
     */
    public long write(MemorySegment source, List<Segment> segments) throws IOException {
        long at = 0;
        for (Segment s : segments) {
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
        return at;
    }

    private synchronized MemorySegment window(Segment s) throws IOException {
        Region r = regions.get(s.handle());
        if (r == null) {
            throw new IOException("no region with handle " + Integer.toHexString(s.handle()));
        }
        long off = s.address() - r.base();
        if (off < 0 || off + s.length() > r.bytes().length) {
            throw new IOException("access outside region " + Integer.toHexString(s.handle()));
        }
        return MemorySegment.ofArray(r.bytes()).asSlice(off, s.length());
    }
}
