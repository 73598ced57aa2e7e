package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/**
 * {@code struct in6_addr} of {@code <netinet/in.h>} (glibc): an IPv6 address, network byte order. Its bytes are
 * the union {@code __in6_u} ({@code s6_addr} is a macro for {@code __in6_u.__u6_addr8}).
 */
public final class in6_addr {
    private in6_addr() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "in6_addr",
            CLayouts.union(
                            null,
                            CLayouts.array(16, C_U8, "__u6_addr8"),
                            CLayouts.array(8, C_U16, "__u6_addr16"),
                            CLayouts.array(4, C_U32, "__u6_addr32"))
                    .withName("__in6_u"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    /** {@code s6_addr}: the 16 bytes. */
    public static final long __in6_u$__u6_addr8$OFFSET = CLayouts.offset(LAYOUT, "__in6_u.__u6_addr8");
}
