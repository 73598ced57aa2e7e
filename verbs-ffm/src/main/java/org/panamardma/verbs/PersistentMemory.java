package org.panamardma.verbs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
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
     * device's alignment (typically 2 MiB) and at most its size.
     *
     * <p>What is opened is checked before anything is mapped (issue 25, item 7): it must be a device-DAX character
     * device (its {@code /sys/dev/char/MAJOR:MINOR/subsystem} is {@code dax}) of at least {@code length} bytes
     * ({@code size} there). Mapping a regular file, or beyond a device's end, would hand out a segment whose pages
     * fault with SIGBUS when touched, crashing the JVM; mapping another character device ({@code /dev/mem}) would
     * hand out memory that is not the caller's. The checks look at the file descriptor actually opened
     * ({@code /proc/self/fd}), so a path swapped between check and use changes nothing.
     *
     * @param daxDevice the device-DAX character device, e.g. {@code /dev/dax0.0}
     * @param length    bytes to map from the start of the device
     * @return the mapping; close it to unmap
     * @throws IllegalArgumentException if the path is not a device-DAX device, or {@code length} is not positive,
     *                                  beyond its size, or not a multiple of its alignment
     * @throws RdmaException if the device cannot be opened or mapped (errno)
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
                checkDeviceDax(daxDevice, fd, length);
                MemorySegment addr = libc_h.mmap(
                        callState,
                        MemorySegment.NULL,
                        length,
                        libc_h.PROT_READ | libc_h.PROT_WRITE,
                        libc_h.MAP_SHARED,
                        fd,
                        0);
                if (addr.address() == libc_h.MAP_FAILED) {
                    throw new RdmaException("mmap(" + daxDevice + ", " + length + " bytes)", Native.errno(callState));
                }
                // the segment lives in its own arena, whose close unmaps: regions over it then see it freed
                Arena mapping = Arena.ofShared();
                return new PersistentMemory(
                        daxDevice, mapping, addr.reinterpret(length, mapping, s -> libc_h.munmap(s, length)));
            } finally {
                // the mapping keeps the device open
                libc_h.close(fd);
            }
        }
    }

    /** S_IFMT and S_IFCHR of {@code <sys/stat.h>}. */
    private static final int S_IFMT = 0170000;

    private static final int S_IFCHR = 0020000;

    /**
     * Refuses what {@code fd} (opened from {@code path}) is unless it is a device-DAX character device of at least
     * {@code length} bytes, {@code length} a multiple of its alignment: from the descriptor's own status (through
     * /proc/self/fd) and the device's sysfs directory.
     */
    static void checkDeviceDax(Path path, int fd, long length) {
        Path opened = Path.of("/proc/self/fd/" + fd);
        int mode;
        long rdev;
        try {
            mode = (Integer) Files.getAttribute(opened, "unix:mode");
            rdev = (Long) Files.getAttribute(opened, "unix:rdev");
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            throw new IllegalArgumentException(path + ": cannot tell what it is (" + e + ")", e);
        }
        if ((mode & S_IFMT) != S_IFCHR) {
            throw new IllegalArgumentException(path + " is not a character device: map device-DAX (/dev/daxN.M)");
        }
        // glibc's gnu_dev_major/gnu_dev_minor
        long major = ((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL);
        long minor = (rdev & 0xff) | ((rdev >>> 12) & ~0xffL);
        Path sys = Path.of("/sys/dev/char/" + major + ":" + minor);
        String subsystem;
        try {
            subsystem = Files.readSymbolicLink(sys.resolve("subsystem"))
                    .getFileName()
                    .toString();
        } catch (IOException | UnsupportedOperationException e) {
            throw new IllegalArgumentException(
                    path + " (" + major + ":" + minor + ") has no subsystem in " + sys + ": not a device-DAX device",
                    e);
        }
        if (!subsystem.equals("dax")) {
            throw new IllegalArgumentException(path + " is a " + subsystem + " device, not device-DAX");
        }
        long size = sysfsNumber(path, sys.resolve("size"));
        if (length > size) {
            throw new IllegalArgumentException(length + " bytes beyond the " + size + " of " + path);
        }
        Path alignFile = sys.resolve("align");
        if (Files.exists(alignFile)) {
            long align = sysfsNumber(path, alignFile);
            if (align > 0 && length % align != 0) {
                throw new IllegalArgumentException(
                        length + " bytes is not a multiple of " + path + "'s alignment " + align);
            }
        }
    }

    private static long sysfsNumber(Path device, Path file) {
        try {
            return Long.parseLong(Files.readString(file).trim());
        } catch (IOException | NumberFormatException e) {
            throw new IllegalArgumentException(device + ": cannot read " + file + " (" + e + ")", e);
        }
    }

    /** {@return the mapped memory; register it with {@link ProtectionDomain#register}. Valid until {@link #close()}} */
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
