package org.panamardma.verbs;

/** {@code enum ibv_atomic_cap}: whether and how a device executes the 64-bit RDMA atomics. */
public enum AtomicCapability {
    /** No atomics (siw). */
    NONE,
    /** Atomic with respect to other atomics through this device (rxe). */
    HCA,
    /** Atomic also with respect to the CPU and other devices. */
    GLOBAL;

    static AtomicCapability of(int value) {
        return switch (value) {
            case 1 -> HCA;
            case 2 -> GLOBAL;
            default -> NONE;
        };
    }
}
