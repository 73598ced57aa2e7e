package org.panamardma.testbed;

import java.nio.file.Path;

/**
 * Persistent memory for FLUSH-to-persistence tests: a device-DAX character device (the testbed's emulated NVDIMM).
 * Map it with {@code mmap(MAP_SHARED)} at an offset and length that are multiples of {@code align}.
 *
 * @param path the character device, {@code /dev/daxN.M}
 * @param size its size in bytes
 * @param align the alignment of every mapping's offset and length, in bytes
 */
public record PmemDevice(Path path, long size, long align) {}
