package org.panamardma.verbs.ffi;

import static org.panamardma.verbs.ffi.CLayouts.*;

import java.lang.foreign.StructLayout;

/** {@code struct sockaddr_storage} of {@code <sys/socket.h>} (glibc): room for any socket address, 128 bytes. */
public final class sockaddr_storage {
    private sockaddr_storage() {}

    private static final StructLayout LAYOUT = CLayouts.struct(
            "sockaddr_storage",
            C_U16.withName("ss_family"),
            CLayouts.array(118, C_CHAR, "__ss_padding"),
            C_U64.withName("__ss_align"));

    public static StructLayout layout() {
        return LAYOUT;
    }

    public static final long ss_family$OFFSET = CLayouts.offset(LAYOUT, "ss_family");
}
