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

    /** A chain of at most {@code capacity} requests, 1 to {@value #MAX_REQUESTS}. */
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

    /** Empties the chain (and lets go of its regions). */
    public SendChain clear() {
        Arrays.fill(regions, 0, count, null);
        count = 0;
        return this;
    }

    /** The number of requests in the chain. */
    public int size() {
        return count;
    }

    /** The most requests the chain holds. */
    public int capacity() {
        return capacity;
    }

    /** The wr_id of request {@code i}, as added. */
    public long wrId(int i) {
        checkIndex(i);
        return wrIds[i];
    }

    /** A SEND of {@code length} bytes of {@code mr} at {@code offset}. */
    public SendChain send(long wrId, MemoryRegion mr, long offset, int length, int flags) {
        return add(Op.SEND, wrId, mr, offset, length, 0L, 0, 0, flags);
    }

    /** A SEND with immediate data (host byte order). */
    public SendChain sendWithImmediate(long wrId, MemoryRegion mr, long offset, int length, int immediate, int flags) {
        return add(Op.SEND_WITH_IMM, wrId, mr, offset, length, 0L, 0, immediate, flags);
    }

    /** An RDMA WRITE of {@code length} bytes of {@code mr} at {@code offset} to the peer's {@code remoteAddress}. */
    public SendChain write(
            long wrId, MemoryRegion mr, long offset, int length, long remoteAddress, int rkey, int flags) {
        return add(Op.WRITE, wrId, mr, offset, length, remoteAddress, rkey, 0, flags);
    }

    /** An RDMA WRITE with immediate data. */
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

    /** An RDMA READ of {@code length} bytes at the peer's {@code remoteAddress} into {@code mr} at {@code offset}. */
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
