package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct sockaddr} of {@code <sys/socket.h>} (glibc): the generic socket address rdma_cm takes. */
public final class sockaddr {
    private sockaddr() {}

    private static final StructLayout LAYOUT =
            CLayouts.struct("sockaddr", C_U16.withName("sa_family"), CLayouts.array(14, C_CHAR, "sa_data"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long sa_family$OFFSET = CLayouts.offset(LAYOUT, "sa_family");
}
