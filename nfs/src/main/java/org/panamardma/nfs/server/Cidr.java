package org.panamardma.nfs.server;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * An address block, {@code 10.77.0.0/16} or {@code fd00::/8}; a bare address is a block of one. An IPv4 client seen
 * as an IPv4-mapped IPv6 address ({@code ::ffff:10.77.0.1}) matches the IPv4 block.
 *
 * @param network the block's first address, host bits zero
 * @param prefix the length of the network part in bits
 */
record Cidr(byte[] network, int prefix) {
    Cidr {
        network = network.clone();
    }

    /**
     * Parses {@code ADDRESS[/PREFIX]}; the address must be numeric (no name lookups at start).
     *
     * @throws IllegalArgumentException if it is not a block, or has host bits set
     */
    static Cidr parse(String text) {
        String t = text.trim();
        int slash = t.indexOf('/');
        String host = slash < 0 ? t : t.substring(0, slash);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        if (host.isEmpty()
                || !(host.indexOf(':') >= 0 || host.chars().allMatch(ch -> ch == '.' || Character.isDigit(ch)))) {
            throw new IllegalArgumentException("not a numeric address: \"" + text + "\"");
        }
        byte[] address;
        try {
            address = normalize(InetAddress.getByName(host)).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an address: \"" + text + "\"");
        }
        int bits = address.length * 8;
        int prefix;
        if (slash < 0) {
            prefix = bits;
        } else {
            try {
                prefix = Integer.parseInt(t.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a prefix length: \"" + text + "\"");
            }
            if (prefix < 0 || prefix > bits) {
                throw new IllegalArgumentException("prefix length " + prefix + " of a " + bits + "-bit address");
            }
        }
        for (int i = prefix; i < bits; i++) {
            if ((address[i / 8] & (0x80 >>> (i % 8))) != 0) {
                throw new IllegalArgumentException("\"" + text + "\" has host bits set");
            }
        }
        return new Cidr(address, prefix);
    }

    /** An IPv4-mapped IPv6 address as the IPv4 address it is. */
    static InetAddress normalize(InetAddress a) {
        if (a instanceof Inet6Address six) {
            byte[] b = six.getAddress();
            boolean mapped = true;
            for (int i = 0; i < 10; i++) {
                mapped &= b[i] == 0;
            }
            mapped &= b[10] == (byte) 0xff && b[11] == (byte) 0xff;
            if (mapped) {
                try {
                    return Inet4Address.getByAddress(new byte[] {b[12], b[13], b[14], b[15]});
                } catch (UnknownHostException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return a;
    }

    boolean contains(InetAddress address) {
        byte[] a = normalize(address).getAddress();
        if (a.length != network.length) {
            return false;
        }
        for (int i = 0; i < prefix; i++) {
            int mask = 0x80 >>> (i % 8);
            if ((a[i / 8] & mask) != (network[i / 8] & mask)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Cidr c && c.prefix == prefix && java.util.Arrays.equals(c.network, network);
    }

    @Override
    public int hashCode() {
        return 31 * java.util.Arrays.hashCode(network) + prefix;
    }

    @Override
    public String toString() {
        try {
            return InetAddress.getByAddress(network).getHostAddress() + "/" + prefix;
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
