package org.panamardma.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.libc_h;

/**
 * Persistent memory mapped from a device-DAX character device ({@code /dev/daxN.M}), for memory regions that
 * peers may FLUSH to persistence ({@link Access#FLUSH_PERSISTENT}): devices grant that access only on memory
 * that is really persistent (rxe checks the pages). File-system DAX does not do: the kernel refuses to pin its
 * pages for long, as registration must.
 */
public final class PersistentMemory implements AutoCloseable {
    private final Path device;
    private final Arena mapping;
    private final MemorySegment segment;

    private PersistentMemory(Path device, Arena mapping, MemorySegment segment) {
        this.device = device;
        this.mapping = mapping;
        this.segment = segment;
    }

    /**
     * Maps {@code length} bytes of the device from its start, shared. {@code length} must be a multiple of the
     * device's alignment (typically 2 MiB).
     */
    public static PersistentMemory map(Path daxDevice, long length) throws RdmaException {
        if (length <= 0) {
            throw new IllegalArgumentException("length must be positive: " + length);
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = arena.allocate(Native.CALL_STATE);
            int fd = libc_h.open(callState, arena.allocateFrom(daxDevice.toString()), libc_h.O_RDWR);
            if (fd < 0) {
                throw new RdmaException("open(" + daxDevice + ")", Native.errno(callState));
            }
            try {
                MemorySegment addr = libc_h.mmap(callState, MemorySegment.NULL, length,
                        libc_h.PROT_READ | libc_h.PROT_WRITE, libc_h.MAP_SHARED, fd, 0);
                if (addr.address() == libc_h.MAP_FAILED) {
                    throw new RdmaException("mmap(" + daxDevice + ", " + length + " bytes)", Native.errno(callState));
                }
                // the segment lives in its own arena, whose close unmaps: regions over it then see it freed
                Arena mapping = Arena.ofShared();
                return new PersistentMemory(daxDevice, mapping,
                        addr.reinterpret(length, mapping, s -> libc_h.munmap(s, length)));
            } finally {
                // the mapping keeps the device open
                libc_h.close(fd);
            }
        }
    }

    /** The mapped memory; register it with {@link ProtectionDomain#register}. Valid until {@link #close()}. */
    public MemorySegment segment() {
        if (!mapping.scope().isAlive()) {
            throw new IllegalStateException("persistent memory of " + device + " is unmapped");
        }
        return segment;
    }

    /** Unmaps the memory. Close the memory regions over it first. */
    @Override
    public synchronized void close() {
        if (mapping.scope().isAlive()) {
            mapping.close();
        }
    }
}
