package org.panamardma.verbs;

/**
 * Remote memory as a peer advertised it: the address, length and rkey of (part of) one of its memory regions.
 * Plain values: exchanging them (over a SEND, private data, an RPC chunk list) is the application's business.
 *
 * @param address the peer's virtual address of the first byte (as the peer's memory region maps it)
 * @param length  bytes, not negative
 * @param rkey    the peer region's remote key
 */
public record RemoteRegion(long address, long length, int rkey) {
    /** A remote region; refuses a negative length. */
    public RemoteRegion {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
    }

    /**
     * The part at {@code offset} of {@code length} bytes.
     *
     * @param offset bytes from this region's start
     * @param length bytes of the part
     * @return the part, with the same rkey
     * @throws IndexOutOfBoundsException if the part is not within this region
     */
    public RemoteRegion slice(long offset, long length) {
        if (offset < 0 || length < 0 || offset > this.length - length) {
            throw new IndexOutOfBoundsException("[" + offset + ", +" + length + ") outside " + this);
        }
        return new RemoteRegion(address + offset, length, rkey);
    }

    @Override
    public String toString() {
        return "remote[0x" + Long.toHexString(address) + ", " + length + " bytes, rkey 0x" + Integer.toHexString(rkey)
                + "]";
    }
}
