package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct in_addr} of {@code <netinet/in.h>}: an IPv4 address, network byte order. */
public final class in_addr {
    private in_addr() {}

    private static final StructLayout LAYOUT = CLayouts.struct("in_addr", C_U32.withName("s_addr"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long s_addr$OFFSET = CLayouts.offset(LAYOUT, "s_addr");
}
