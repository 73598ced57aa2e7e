package org.panamardma.verbs.ffi;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_device} of {@code <infiniband/verbs.h>}, in jextract's shape. */
public final class ibv_device {
    private ibv_device() {}

    public static final int IBV_SYSFS_NAME_MAX = 64;
    public static final int IBV_SYSFS_PATH_MAX = 256;

    private static final StructLayout LAYOUT = MemoryLayout.structLayout(
                    MemoryLayout.structLayout(ADDRESS.withName("_dummy1"), ADDRESS.withName("_dummy2"))
                            .withName("_ops"),
                    JAVA_INT.withName("node_type"),
                    JAVA_INT.withName("transport_type"),
                    MemoryLayout.sequenceLayout(IBV_SYSFS_NAME_MAX, JAVA_BYTE).withName("name"),
                    MemoryLayout.sequenceLayout(IBV_SYSFS_NAME_MAX, JAVA_BYTE).withName("dev_name"),
                    MemoryLayout.sequenceLayout(IBV_SYSFS_PATH_MAX, JAVA_BYTE).withName("dev_path"),
                    MemoryLayout.sequenceLayout(IBV_SYSFS_PATH_MAX, JAVA_BYTE).withName("ibdev_path"))
            .withName("ibv_device");

    public static StructLayout layout() {
        return LAYOUT;
    }

    private static final long node_type$OFFSET = LAYOUT.byteOffset(groupElement("node_type"));
    private static final long transport_type$OFFSET = LAYOUT.byteOffset(groupElement("transport_type"));
    private static final long name$OFFSET = LAYOUT.byteOffset(groupElement("name"));
    private static final long ibdev_path$OFFSET = LAYOUT.byteOffset(groupElement("ibdev_path"));

    public static long node_type$offset() {
        return node_type$OFFSET;
    }

    public static long transport_type$offset() {
        return transport_type$OFFSET;
    }

    public static long name$offset() {
        return name$OFFSET;
    }

    public static long ibdev_path$offset() {
        return ibdev_path$OFFSET;
    }

    public static int node_type(MemorySegment struct) {
        return struct.get(JAVA_INT, node_type$OFFSET);
    }

    public static int transport_type(MemorySegment struct) {
        return struct.get(JAVA_INT, transport_type$OFFSET);
    }

    public static String name(MemorySegment struct) {
        return struct.getString(name$OFFSET);
    }

    public static String ibdev_path(MemorySegment struct) {
        return struct.getString(ibdev_path$OFFSET);
    }
}
