package org.panamardma.testbed;

import java.nio.file.Path;

/**
 * Persistent memory for FLUSH-to-persistence tests: a device-DAX character device (the testbed's emulated NVDIMM).
 * Map it with {@code mmap(MAP_SHARED)} at an offset and length that are multiples of {@code align}.
 */
public record PmemDevice(Path path, long size, long align) {}
