package org.panamardma.verbs;

import org.panamardma.verbs.ffi.verbs_h;

/**
 * What {@code ibv_query_device_ex} reports: limits and capabilities. Capability checks of the typed API
 * (atomics, FLUSH, ATOMIC WRITE) are made from these. They are the device's (the kernel's: every supported
 * libibverbs passes {@code device_cap_flags_ex} on unchanged); whether the installed rdma-core can post FLUSH or
 * ATOMIC WRITE is {@link RdmaCore.Feature}, and a queue pair can only if both can ({@link QueuePair#supportsFlush() QueuePair.supportsFlush()}).
 *
 * @param firmwareVersion   {@code fw_ver}, as the provider formats it
 * @param nodeGuid          {@code node_guid}, in host order
 * @param maxMrSize         {@code max_mr_size}: the largest registration, in bytes
 * @param vendorId          {@code vendor_id} (IEEE OUI; rxe: 0xFFFFFF)
 * @param vendorPartId      {@code vendor_part_id}
 * @param maxQp             {@code max_qp}: queue pairs on the device
 * @param maxQpWr           {@code max_qp_wr}: the deepest send or receive queue
 * @param maxSge            {@code max_sge}: gather/scatter elements per send or receive request
 * @param maxSgeRd          {@code max_sge_rd}: scatter elements per RDMA READ
 * @param maxCq             {@code max_cq}: completion queues on the device
 * @param maxCqe            {@code max_cqe}: the largest CQ, in entries
 * @param maxMr             {@code max_mr}: memory regions on the device
 * @param maxPd             {@code max_pd}: protection domains on the device
 * @param maxQpRdAtomic     {@code max_qp_rd_atom}: RDMA READs and atomics a QP executes for its peer at once (IRD)
 * @param maxQpInitRdAtomic {@code max_qp_init_rd_atom}: RDMA READs and atomics a QP may have outstanding (ORD)
 * @param atomicCapability  {@code atomic_cap}: none, within the HCA, or globally atomic
 * @param maxSrq            {@code max_srq}: shared receive queues on the device
 * @param maxSrqWr          {@code max_srq_wr}: the deepest SRQ
 * @param maxSrqSge         {@code max_srq_sge}: scatter elements per SRQ receive
 * @param physicalPortCount {@code phys_port_cnt}: ports, numbered from 1
 * @param deviceCapFlags    {@code device_cap_flags}: the {@code IBV_DEVICE_*} bits
 * @param deviceCapFlagsEx  the full {@code device_cap_flags_ex}; bits 38-40 are the kernel's
 *                          {@code IB_UVERBS_DEVICE_FLUSH_GLOBAL}, {@code _FLUSH_PERSISTENT}, {@code _ATOMIC_WRITE}
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

    /**
     * {@return whether the device executes RDMA atomics (FetchAdd, CmpSwap): {@code atomic_cap} is not
     * {@code IBV_ATOMIC_NONE}}
     */
    public boolean supportsAtomics() {
        return atomicCapability != AtomicCapability.NONE;
    }

    /**
     * {@return whether the device has type 2 memory windows ({@code IBV_DEVICE_MEM_WINDOW_TYPE_2A} or {@code _2B} in
     * {@code device_cap_flags})}
     * A type 2 window is bound by a work request on one queue pair and invalidated by another ({@link MemoryWindow}).
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
     *
     * @return the reason, naming the defects; empty where none is known
     */
    public java.util.Optional<String> memoryWindowDefect() {
        if (supportsMemoryWindows() && vendorId == RdmaCore.Quirk.RXE_VENDOR_ID) {
            return java.util.Optional.of("rxe checks a window's accesses against its whole memory region "
                    + "(rxe_resp.c check_rkey), and a peer's Send With Invalidate naming a free type 2 window crashes "
                    + "the kernel (rxe_do_invalidate_mw)");
        }
        return java.util.Optional.empty();
    }

    /**
     * {@return whether the device does RDMA FLUSH to global visibility (draft-talpey-rdma-commit section 4.1; kernel
     * 6.2 and later)}
     */
    public boolean supportsFlushGlobal() {
        return (deviceCapFlagsEx & verbs_h.IB_UVERBS_DEVICE_FLUSH_GLOBAL) != 0;
    }

    /** {@return whether the device does RDMA FLUSH to persistence (kernel 6.2 and later)} */
    public boolean supportsFlushPersistent() {
        return (deviceCapFlagsEx & verbs_h.IB_UVERBS_DEVICE_FLUSH_PERSISTENT) != 0;
    }

    /**
     * {@return whether the device does RDMA ATOMIC WRITE (draft-talpey-rdma-commit section 4.2; kernel 6.2 and later)}
     */
    public boolean supportsAtomicWrite() {
        return (deviceCapFlagsEx & verbs_h.IB_UVERBS_DEVICE_ATOMIC_WRITE) != 0;
    }
}
