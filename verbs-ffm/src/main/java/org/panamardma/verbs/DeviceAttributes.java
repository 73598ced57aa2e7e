package org.panamardma.verbs;

import org.panamardma.verbs.ffi.verbs_h;

/**
 * What {@code ibv_query_device_ex} reports: limits and capabilities. Capability checks of the typed API
 * (atomics, FLUSH, ATOMIC WRITE) are made from these. They are the device's (the kernel's: every supported
 * libibverbs passes {@code device_cap_flags_ex} on unchanged); whether the installed rdma-core can post FLUSH or
 * ATOMIC WRITE is {@link RdmaCore.Feature}, and a queue pair can only if both can ({@link QueuePair#supportsFlush()}).
 *
 * @param deviceCapFlagsEx the full {@code device_cap_flags_ex}; bits 38-40 are the kernel's
 *                         {@code IB_UVERBS_DEVICE_FLUSH_GLOBAL}, {@code _FLUSH_PERSISTENT}, {@code _ATOMIC_WRITE}
 */
public record DeviceAttributes(
        String firmwareVersion,
        long nodeGuid,
        long maxMrSize,
        int vendorId,
        int vendorPartId,
        int maxQp,
        int maxQpWr,
        int maxSge,
        int maxSgeRd,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtomic,
        int maxQpInitRdAtomic,
        AtomicCapability atomicCapability,
        int maxSrq,
        int maxSrqWr,
        int maxSrqSge,
        int physicalPortCount,
        int deviceCapFlags,
        long deviceCapFlagsEx) {

    /** RDMA atomics (FetchAdd, CmpSwap): {@code atomic_cap} is not {@code IBV_ATOMIC_NONE}. */
    public boolean supportsAtomics() {
        return atomicCapability != AtomicCapability.NONE;
    }

    /**
     * Type 2 memory windows ({@code IBV_DEVICE_MEM_WINDOW_TYPE_2A} or {@code _2B} in {@code device_cap_flags}): a
     * window bound by a work request on one queue pair and invalidated by another ({@link MemoryWindow}).
     */
    public boolean supportsMemoryWindows() {
        return (deviceCapFlags & (verbs_h.IBV_DEVICE_MEM_WINDOW_TYPE_2A | verbs_h.IBV_DEVICE_MEM_WINDOW_TYPE_2B)) != 0;
    }

    /**
     * Why this device's memory windows must not be trusted against a hostile peer, or empty. Soft-RoCE (rxe,
     * {@code vendor_id} 0xFFFFFF; seen on Linux 6.1 and 6.12 in the testbed) has two defects: its responder checks a
     * window's accesses against the range of the window's memory region, not the window's ({@code check_rkey} in
     * rxe_resp.c), and invalidating a free type 2 window, locally or by the peer's Send With Invalidate naming its
     * key, dereferences the window's absent queue pair ({@code rxe_do_invalidate_mw}): the kernel panics. A peer
     * that learned a window's key can therefore crash the host once the window is free.
     */
    public java.util.Optional<String> memoryWindowDefect() {
        if (supportsMemoryWindows() && vendorId == RdmaCore.Quirk.RXE_VENDOR_ID) {
            return java.util.Optional.of("rxe checks a window's accesses against its whole memory region "
                    + "(rxe_resp.c check_rkey), and a peer's Send With Invalidate naming a free type 2 window crashes "
                    + "the kernel (rxe_do_invalidate_mw)");
        }
        return java.util.Optional.empty();
    }

    /** RDMA FLUSH to global visibility (draft-talpey-rdma-commit section 4.1). */
    public boolean supportsFlushGlobal() {
        return (deviceCapFlagsEx & verbs_h.IB_UVERBS_DEVICE_FLUSH_GLOBAL) != 0;
    }

    /** RDMA FLUSH to persistence. */
    public boolean supportsFlushPersistent() {
        return (deviceCapFlagsEx & verbs_h.IB_UVERBS_DEVICE_FLUSH_PERSISTENT) != 0;
    }

    /** RDMA ATOMIC WRITE (draft-talpey-rdma-commit section 4.2). */
    public boolean supportsAtomicWrite() {
        return (deviceCapFlagsEx & verbs_h.IB_UVERBS_DEVICE_ATOMIC_WRITE) != 0;
    }
}
