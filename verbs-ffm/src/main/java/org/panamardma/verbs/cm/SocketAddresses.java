package org.panamardma.verbs.cm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import org.panamardma.verbs.ffi.in_addr;
import org.panamardma.verbs.ffi.libc_h;
import org.panamardma.verbs.ffi.sockaddr;
import org.panamardma.verbs.ffi.sockaddr_in;
import org.panamardma.verbs.ffi.sockaddr_in6;
import org.panamardma.verbs.ffi.sockaddr_storage;

/** {@link InetSocketAddress} to and from {@code struct sockaddr_in} / {@code sockaddr_in6} (network byte order). */
final class SocketAddresses {
    private SocketAddresses() {}

    /** A {@code sockaddr_storage} in {@code arena} holding {@code address}. */
    static MemorySegment write(Arena arena, InetSocketAddress address) {
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("unresolved address " + address + ": resolve the host name first");
        }
        MemorySegment s = arena.allocate(sockaddr_storage.layout());
        InetAddress ip = address.getAddress();
        short port = Short.reverseBytes((short) address.getPort());
        if (ip instanceof Inet4Address) {
            s.set(JAVA_SHORT, sockaddr_in.sin_family$OFFSET, (short) libc_h.AF_INET);
            s.set(JAVA_SHORT, sockaddr_in.sin_port$OFFSET, port);
            MemorySegment.copy(ip.getAddress(), 0, s, JAVA_BYTE, sockaddr_in.sin_addr$s_addr$OFFSET, 4);
        } else if (ip instanceof Inet6Address ip6) {
            s.set(JAVA_SHORT, sockaddr_in6.sin6_family$OFFSET, (short) libc_h.AF_INET6);
            s.set(JAVA_SHORT, sockaddr_in6.sin6_port$OFFSET, port);
            MemorySegment.copy(ip6.getAddress(), 0, s, JAVA_BYTE, sockaddr_in6.sin6_addr$OFFSET, 16);
            s.set(JAVA_INT, sockaddr_in6.sin6_scope_id$OFFSET, ip6.getScopeId());
        } else {
            throw new IllegalArgumentException("not an IPv4 or IPv6 address: " + address);
        }
        return s;
    }

    /** The address in a sockaddr of family AF_INET or AF_INET6; null for any other family (e.g. unset: 0). */
    static InetSocketAddress read(MemorySegment s) {
        int family = Short.toUnsignedInt(s.get(JAVA_SHORT, sockaddr.sa_family$OFFSET));
        try {
            if (family == libc_h.AF_INET) {
                byte[] ip = s.asSlice(
                                sockaddr_in.sin_addr$s_addr$OFFSET,
                                in_addr.layout().byteSize())
                        .toArray(JAVA_BYTE);
                int port = Short.toUnsignedInt(Short.reverseBytes(s.get(JAVA_SHORT, sockaddr_in.sin_port$OFFSET)));
                return new InetSocketAddress(InetAddress.getByAddress(ip), port);
            }
            if (family == libc_h.AF_INET6) {
                byte[] ip = s.asSlice(sockaddr_in6.sin6_addr$OFFSET, 16).toArray(JAVA_BYTE);
                int port = Short.toUnsignedInt(Short.reverseBytes(s.get(JAVA_SHORT, sockaddr_in6.sin6_port$OFFSET)));
                int scope = s.get(JAVA_INT, sockaddr_in6.sin6_scope_id$OFFSET);
                InetAddress a = scope != 0 ? Inet6Address.getByAddress(null, ip, scope) : InetAddress.getByAddress(ip);
                return new InetSocketAddress(a, port);
            }
            return null;
        } catch (UnknownHostException e) {
            throw new AssertionError(e); // only for a wrong address length
        }
    }
}
