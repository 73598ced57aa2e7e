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
public record DeviceAttributes(String firmwareVersion, long nodeGuid, long maxMrSize, int vendorId,
                               int vendorPartId, int maxQp, int maxQpWr, int maxSge, int maxSgeRd, int maxCq,
                               int maxCqe, int maxMr, int maxPd, int maxQpRdAtomic, int maxQpInitRdAtomic,
                               AtomicCapability atomicCapability, int maxSrq, int maxSrqWr, int maxSrqSge,
                               int physicalPortCount, int deviceCapFlags, long deviceCapFlagsEx) {

    /** RDMA atomics (FetchAdd, CmpSwap): {@code atomic_cap} is not {@code IBV_ATOMIC_NONE}. */
    public boolean supportsAtomics() {
        return atomicCapability != AtomicCapability.NONE;
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
