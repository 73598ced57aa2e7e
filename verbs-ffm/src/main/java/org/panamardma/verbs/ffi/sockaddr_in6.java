package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct sockaddr_in6} of {@code <netinet/in.h>}: port, flow info and address in network byte order. */
public final class sockaddr_in6 {
    private sockaddr_in6() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "sockaddr_in6",
            C_U16.withName("sin6_family"),
            C_U16.withName("sin6_port"),
            C_U32.withName("sin6_flowinfo"),
            in6_addr.layout().withName("sin6_addr"),
            C_U32.withName("sin6_scope_id"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long sin6_family$OFFSET = CLayouts.offset(LAYOUT, "sin6_family");
    public static final long sin6_port$OFFSET = CLayouts.offset(LAYOUT, "sin6_port");
    public static final long sin6_flowinfo$OFFSET = CLayouts.offset(LAYOUT, "sin6_flowinfo");
    public static final long sin6_addr$OFFSET = CLayouts.offset(LAYOUT, "sin6_addr");
    public static final long sin6_scope_id$OFFSET = CLayouts.offset(LAYOUT, "sin6_scope_id");
}
