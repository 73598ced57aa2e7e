package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct sockaddr_in} of {@code <netinet/in.h>}: family, port and address in network byte order. */
public final class sockaddr_in {
    private sockaddr_in() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "sockaddr_in",
            C_U16.withName("sin_family"),
            C_U16.withName("sin_port"),
            in_addr.layout().withName("sin_addr"),
            CLayouts.array(8, C_U8, "sin_zero"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long sin_family$OFFSET = CLayouts.offset(LAYOUT, "sin_family");
    public static final long sin_port$OFFSET = CLayouts.offset(LAYOUT, "sin_port");
    public static final long sin_addr$s_addr$OFFSET = CLayouts.offset(LAYOUT, "sin_addr.s_addr");
}
