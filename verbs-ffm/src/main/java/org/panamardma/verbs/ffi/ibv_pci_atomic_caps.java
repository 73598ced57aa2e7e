package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct ibv_pci_atomic_caps}. */
public final class ibv_pci_atomic_caps {
    private ibv_pci_atomic_caps() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "ibv_pci_atomic_caps", C_U16.withName("fetch_add"), C_U16.withName("swap"), C_U16.withName("compare_swap"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long fetch_add$OFFSET = CLayouts.offset(LAYOUT, "fetch_add");
    public static final long swap$OFFSET = CLayouts.offset(LAYOUT, "swap");
    public static final long compare_swap$OFFSET = CLayouts.offset(LAYOUT, "compare_swap");
}
