package org.panamardma.rpcrdma.server;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.panamardma.rpcrdma.RdmaSegment;

/**
 * The client's registered memory, played on the host: regions by handle, each at a base address; RDMA Read and
 * Write check the handle and the bounds as a device would (an access outside fails the connection: IOException).
 */
final class FakeTransfers implements ChunkTransfers {
    private record Region(long base, byte[] bytes) {}

    private final Map<Integer, Region> regions = new HashMap<>();
    private int nextHandle = 0x100;
    private long nextBase = 0x7f00_0000_0000L;
    final List<String> log = new ArrayList<>();

    /** Registers a copy of {@code bytes}; @return its segment */
    RdmaSegment register(byte[] bytes) {
        int handle = nextHandle++;
        long base = nextBase;
        nextBase += bytes.length + 4096;
        regions.put(handle, new Region(base, bytes.clone()));
        return new RdmaSegment(handle, bytes.length, base);
    }

    /** Registers {@code length} zero bytes to be written. */
    RdmaSegment registerEmpty(int length) {
        return register(new byte[length]);
    }

    /** The current content of the region of {@code segment}. */
    byte[] contents(RdmaSegment segment) {
        return regions.get(segment.handle()).bytes().clone();
    }

    private MemorySegment at(RdmaSegment s) throws IOException {
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
        log.add("read " + at);
    }

    @Override
    public void write(MemorySegment source, List<RdmaSegment> segments) throws IOException {
        long at = 0;
        for (RdmaSegment s : segments) {
            long n = Math.min(s.length(), source.byteSize() - at);
            if (n == 0) {
                continue; // as VerbsChunkTransfers: a zero-length segment takes nothing, the next ones the rest
            }
            MemorySegment.copy(source, at, at(s), 0, n);
            at += n;
        }
        if (at != source.byteSize()) {
            throw new IOException("write of " + source.byteSize() + " bytes into " + at);
        }
        log.add("write " + at);
    }

    static byte[] bytes(MemorySegment s) {
        return s.toArray(JAVA_BYTE);
    }
}
