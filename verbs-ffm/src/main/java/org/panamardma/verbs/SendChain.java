package org.panamardma.verbs;

import java.util.Arrays;
import org.panamardma.verbs.SendPath.Op;

/**
 * A reusable list of send-queue requests that {@link QueuePair#postChain} hands to the device in one post: one
 * {@code ibv_post_send} of a linked list of {@code ibv_send_wr} (or one {@code ibv_wr_start} ... {@code
 * ibv_wr_complete} region), hence one doorbell, where posting them one by one rings one per request. What an
 * RPC-over-RDMA server does with a reply: its RDMA Writes, unsignaled, then its Send (the kernel chains the Write WRs
 * in front of the reply's Send WR and posts them with one ib_post_send: net/sunrpc/xprtrdma/svc_rdma_sendto.c,
 * svc_rdma_sendto and svc_rdma_post_send).
 *
 * <p>{@code chain.clear().write(1, mr, 0, 4096, raddr, rkey, SendFlags.NONE).send(2, hdr, 0, 92, SendFlags.SIGNALED)}.
 * Each request has one scatter/gather element of a registered region (no INLINE: a chain's bytes are read by the
 * device, not copied during the post). The ranges are checked as they are added; the regions are checked open again
 * when the chain is posted. Allocates nothing after construction; not thread-safe (one per posting thread), and
 * reusable as soon as {@code postChain} returns (the QP copies it).
 */
public final class SendChain {
    /** The most requests a chain holds: a QP's chain scratch is this long (and no chain outgrows its send queue). */
    public static final int MAX_REQUESTS = 64;

    private final int capacity;
    int count;
    final Op[] ops;
    final long[] wrIds;
    final int[] flags;
    final long[] addresses;
    final int[] lengths;
    final int[] lkeys;
    final long[] remoteAddresses;
    final int[] rkeys;
    final int[] immediates;
    /** The region of each request: checked open when the chain is posted. */
    final MemoryRegion[] regions;

    /**
     * A chain of at most {@code capacity} requests, 1 to {@value #MAX_REQUESTS}.
     *
     * @param capacity the most requests; the QP's send queue must have room for them all when posted
     * @throws IllegalArgumentException if {@code capacity} is out of range
     */
    public SendChain(int capacity) {
        if (capacity < 1 || capacity > MAX_REQUESTS) {
            throw new IllegalArgumentException("a chain holds 1.." + MAX_REQUESTS + " requests, not " + capacity);
        }
        this.capacity = capacity;
        this.ops = new Op[capacity];
        this.wrIds = new long[capacity];
        this.flags = new int[capacity];
        this.addresses = new long[capacity];
        this.lengths = new int[capacity];
        this.lkeys = new int[capacity];
        this.remoteAddresses = new long[capacity];
        this.rkeys = new int[capacity];
        this.immediates = new int[capacity];
        this.regions = new MemoryRegion[capacity];
    }

    /**
     * Empties the chain (and lets go of its regions).
     *
     * @return this chain, empty
     */
    public SendChain clear() {
        Arrays.fill(regions, 0, count, null);
        count = 0;
        return this;
    }

    /** {@return the number of requests in the chain} */
    public int size() {
        return count;
    }

    /** {@return the most requests the chain holds} */
    public int capacity() {
        return capacity;
    }

    /**
     * The wr_id of request {@code i}, as added.
     *
     * @param i the request's index in the chain, from 0
     * @return its wr_id
     * @throws IndexOutOfBoundsException if {@code i} is not below {@link #size()}
     */
    public long wrId(int i) {
        checkIndex(i);
        return wrIds[i];
    }

    /**
     * A SEND of {@code length} bytes of {@code mr} at {@code offset}.
     *
     * @param wrId   comes back in the request's completion (if it is signaled)
     * @param mr     the region the bytes are in
     * @param offset where in {@code mr}, in bytes
     * @param length bytes sent: at most the peer's receive buffer
     * @param flags  {@link SendFlags} bits, not {@link SendFlags#INLINE}
     * @return this chain, for chaining
     * @throws IllegalStateException if the chain is full
     * @throws IllegalArgumentException for an unknown or INLINE flag
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     */
    public SendChain send(long wrId, MemoryRegion mr, long offset, int length, int flags) {
        return add(Op.SEND, wrId, mr, offset, length, 0L, 0, 0, flags);
    }

    /**
     * A SEND with immediate data (host byte order).
     *
     * @param wrId      comes back in the request's completion (if it is signaled)
     * @param mr        the region the bytes are in
     * @param offset    where in {@code mr}, in bytes
     * @param length    bytes sent: at most the peer's receive buffer
     * @param immediate 32 bits delivered in the peer's receive completion
     * @param flags     {@link SendFlags} bits, not {@link SendFlags#INLINE}
     * @return this chain, for chaining
     * @throws IllegalStateException if the chain is full
     * @throws IllegalArgumentException for an unknown or INLINE flag
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     */
    public SendChain sendWithImmediate(long wrId, MemoryRegion mr, long offset, int length, int immediate, int flags) {
        return add(Op.SEND_WITH_IMM, wrId, mr, offset, length, 0L, 0, immediate, flags);
    }

    /**
     * An RDMA WRITE of {@code length} bytes of {@code mr} at {@code offset} to the peer's {@code remoteAddress}.
     *
     * @param wrId          comes back in the request's completion (if it is signaled)
     * @param mr            the region the bytes are in
     * @param offset        where in {@code mr}, in bytes
     * @param length        bytes written
     * @param remoteAddress the peer's virtual address the bytes go to
     * @param rkey          the peer region's key (remote write access)
     * @param flags         {@link SendFlags} bits, not {@link SendFlags#INLINE}
     * @return this chain, for chaining
     * @throws IllegalStateException if the chain is full
     * @throws IllegalArgumentException for an unknown or INLINE flag
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     */
    public SendChain write(
            long wrId, MemoryRegion mr, long offset, int length, long remoteAddress, int rkey, int flags) {
        return add(Op.WRITE, wrId, mr, offset, length, remoteAddress, rkey, 0, flags);
    }

    /**
     * An RDMA WRITE with immediate data.
     *
     * @param wrId          comes back in the request's completion (if it is signaled)
     * @param mr            the region the bytes are in
     * @param offset        where in {@code mr}, in bytes
     * @param length        bytes written
     * @param remoteAddress the peer's virtual address the bytes go to
     * @param rkey          the peer region's key (remote write access)
     * @param immediate     32 bits delivered in the peer's receive completion, which consumes one of its receives
     * @param flags         {@link SendFlags} bits, not {@link SendFlags#INLINE}
     * @return this chain, for chaining
     * @throws IllegalStateException if the chain is full
     * @throws IllegalArgumentException for an unknown or INLINE flag
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     */
    public SendChain writeWithImmediate(
            long wrId,
            MemoryRegion mr,
            long offset,
            int length,
            long remoteAddress,
            int rkey,
            int immediate,
            int flags) {
        return add(Op.WRITE_WITH_IMM, wrId, mr, offset, length, remoteAddress, rkey, immediate, flags);
    }

    /**
     * An RDMA READ of {@code length} bytes at the peer's {@code remoteAddress} into {@code mr} at {@code offset}.
     *
     * @param wrId          comes back in the request's completion (if it is signaled)
     * @param mr            the region the bytes land in (local write access)
     * @param offset        where in {@code mr}, in bytes
     * @param length        bytes read
     * @param remoteAddress the peer's virtual address read from
     * @param rkey          the peer region's key (remote read access)
     * @param flags         {@link SendFlags} bits, not {@link SendFlags#INLINE}
     * @return this chain, for chaining
     * @throws IllegalStateException if the chain is full
     * @throws IllegalArgumentException for an unknown or INLINE flag
     * @throws IndexOutOfBoundsException if the range is not within {@code mr}
     */
    public SendChain read(
            long wrId, MemoryRegion mr, long offset, int length, long remoteAddress, int rkey, int flags) {
        return add(Op.READ, wrId, mr, offset, length, remoteAddress, rkey, 0, flags);
    }

    private SendChain add(
            Op op,
            long wrId,
            MemoryRegion mr,
            long offset,
            int length,
            long remoteAddress,
            int rkey,
            int immediate,
            int flags) {
        if (count == capacity) {
            throw new IllegalStateException("send chain full (" + capacity + " requests)");
        }
        if ((flags & ~SendFlags.ALL) != 0) {
            throw new IllegalArgumentException("unknown send flags 0x" + Integer.toHexString(flags & ~SendFlags.ALL));
        }
        if ((flags & SendFlags.INLINE) != 0) {
            throw new IllegalArgumentException("INLINE is not taken in a chain: its requests' bytes are read by the "
                    + "device from registered memory (post an inline request on its own)");
        }
        mr.checkRange(offset, Integer.toUnsignedLong(length));
        int i = count;
        ops[i] = op;
        wrIds[i] = wrId;
        this.flags[i] = flags;
        addresses[i] = mr.address() + offset;
        lengths[i] = length;
        lkeys[i] = mr.lkey();
        remoteAddresses[i] = remoteAddress;
        rkeys[i] = rkey;
        immediates[i] = immediate;
        regions[i] = mr;
        count = i + 1;
        return this;
    }

    private void checkIndex(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("request " + i + " of a chain of " + count);
        }
    }
}
