package org.panamardma.verbs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HexFormat;

/**
 * A 128-bit GID (network byte order), immutable. RoCE GIDs are IPv6 addresses, IPv4 ones in IPv4-mapped form.
 *
 * @param high the first 8 bytes, as a big-endian long
 * @param low  the last 8 bytes, as a big-endian long
 */
public record Gid(long high, long low) {
    public static final Gid ZERO = new Gid(0, 0);

    /**
     * Reads 16 bytes in network byte order.
     *
     * @param segment the memory holding the GID, e.g. a {@code union ibv_gid}
     * @param offset  where its 16 bytes start
     * @return the GID
     * @throws IndexOutOfBoundsException if the 16 bytes are not within {@code segment}
     */
    public static Gid read(MemorySegment segment, long offset) {
        return new Gid(
                segment.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), offset),
                segment.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), offset + 8));
    }

    /**
     * Writes 16 bytes in network byte order.
     *
     * @param segment the memory written
     * @param offset  where the 16 bytes go
     * @throws IndexOutOfBoundsException if the 16 bytes are not within {@code segment}
     */
    public void write(MemorySegment segment, long offset) {
        segment.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), offset, high);
        segment.set(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), offset + 8, low);
    }

    /** {@return the 16 bytes of the GID, in network order (a new array)} */
    public byte[] toBytes() {
        byte[] b = new byte[16];
        write(MemorySegment.ofArray(b), 0);
        return b;
    }

    /**
     * The GID of the 16 bytes {@code sixteen}, in network order.
     *
     * @param sixteen the GID's bytes, in network order (copied)
     * @return the GID
     * @throws IllegalArgumentException if the array is not 16 bytes long
     */
    public static Gid of(byte[] sixteen) {
        if (sixteen.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, got " + sixteen.length);
        }
        return read(MemorySegment.ofArray(sixteen), 0);
    }

    /**
     * The GID of an IP address as RoCE v2 uses it (IPv4 in IPv4-mapped IPv6 form).
     *
     * @param address an IPv4 or IPv6 address
     * @return the GID a RoCE v2 port has for it
     */
    public static Gid of(InetAddress address) {
        byte[] a = address.getAddress();
        if (a.length == 4) {
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xff;
            mapped[11] = (byte) 0xff;
            System.arraycopy(a, 0, mapped, 12, 4);
            return of(mapped);
        }
        return of(a);
    }

    /** {@return whether every bit is zero (an unused GID table entry)} */
    public boolean isZero() {
        return high == 0 && low == 0;
    }

    /**
     * {@return whether it is an IPv4-mapped IPv6 address ({@code ::ffff:a.b.c.d}), as RoCE v2 GIDs of IPv4 addresses
     * are}
     */
    public boolean isIpv4Mapped() {
        return high == 0 && (low >>> 32) == 0xffffL;
    }

    /** {@return the IP address this GID stands for (RoCE); an IPv4 address for IPv4-mapped GIDs} */
    public InetAddress toInetAddress() {
        try {
            return InetAddress.getByAddress(toBytes());
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    @Override
    public String toString() {
        String hex = HexFormat.of().formatHex(toBytes());
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 32; i += 4) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(hex, i, i + 4);
        }
        return sb.toString();
    }
}
