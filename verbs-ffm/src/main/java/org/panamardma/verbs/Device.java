package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.ibv_device;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * An RDMA device as libibverbs lists it. A plain value: listing holds no native resource.
 *
 * @param name          the device name, e.g. {@code rxe0}
 * @param nodeType      channel adapter, RNIC, ...
 * @param transportType InfiniBand (also RoCE) or iWARP, ...
 * @param guid          the node GUID (host byte order)
 * @param ibdevPath     the device's sysfs path
 */
public record Device(String name, NodeType nodeType, TransportType transportType, long guid, String ibdevPath) {

    /**
     * Lists the RDMA devices of this machine. A kernel without RDMA support (libibverbs reports {@code ENOSYS})
     * has none; so has a machine with libibverbs but without its device providers (Debian's ibverbs-providers).
     *
     * <p>Verbs: {@code ibv_get_device_list}, {@code ibv_get_device_guid}.
     *
     * @return the devices in libibverbs' order, an empty list if there are none
     * @throws RdmaLibraryException if libibverbs is not installed (the message names the package to install), cannot be
     *                              loaded, or is older than rdma-core {@value RdmaCore#OLDEST_SUPPORTED}
     * @throws RdmaException if libibverbs fails for another reason (for example {@code EPERM})
     */
    @Verb("ibv_get_device_list")
    @Verb("ibv_get_device_guid")
    public static List<Device> list() throws RdmaException {
        RdmaCore.checkIbverbs();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = arena.allocate(Native.CALL_STATE);
            MemorySegment count = arena.allocate(JAVA_INT);
            MemorySegment array = verbs_h.ibv_get_device_list(callState, count);
            if (array.equals(MemorySegment.NULL)) {
                int errno = Native.errno(callState);
                if (errno == Errno.ENOSYS) {
                    return List.of();
                }
                throw new RdmaException("ibv_get_device_list", errno);
            }
            try {
                int n = count.get(JAVA_INT, 0);
                MemorySegment pointers = array.reinterpret(ADDRESS.byteSize() * n);
                List<Device> devices = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    MemorySegment dev = pointers.getAtIndex(ADDRESS, i)
                            .reinterpret(ibv_device.layout().byteSize());
                    devices.add(new Device(
                            ibv_device.name(dev),
                            NodeType.of(ibv_device.node_type(dev)),
                            TransportType.of(ibv_device.transport_type(dev)),
                            Long.reverseBytes(verbs_h.ibv_get_device_guid(dev)),
                            ibv_device.ibdev_path(dev)));
                }
                return List.copyOf(devices);
            } finally {
                verbs_h.ibv_free_device_list(array);
            }
        }
    }

    /**
     * The device of that name, if listed.
     *
     * <p>Verb: {@code ibv_get_device_list}.
     *
     * @param name the kernel's device name, e.g. {@code rxe0}
     * @return the device, or empty if no device has that name
     * @throws RdmaException as {@link #list()} does
     */
    @Verb("ibv_get_device_list")
    public static Optional<Device> byName(String name) throws RdmaException {
        return list().stream().filter(d -> d.name.equals(name)).findFirst();
    }
}
