package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.lang.ref.Reference;
import java.util.Arrays;
import org.panamardma.verbs.SendPath.Op;
import org.panamardma.verbs.ffi.ibv_send_wr;
import org.panamardma.verbs.ffi.ibv_sge;

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
 * when the chain is posted. The requests are built in native memory as they are added, so a post hands them to the
 * provider as they are. Allocates nothing after construction; not thread-safe (one per posting thread), and
 * reusable as soon as {@code postChain} returns (the provider copies the requests into its queue).
 */
public final class SendChain {
    /** The most requests a chain holds (one post of a bounded list; a chain must also fit the QP's send queue). */
    public static final int MAX_REQUESTS = 64;

    private final int capacity;
    int count;
    /** The opcode of each request: checked against the QP's capabilities when the chain is posted. */
    final Op[] ops;
    /** The region of each request: checked open when the chain is posted. */
    final MemoryRegion[] regions;
    /**
     * The requests themselves, {@code capacity} {@code struct ibv_send_wr} of one element each, filled as they are
     * added and handed to {@code ibv_post_send} as they are (no copy at the post): each one's {@code next} points to
     * the following one and its {@code sg_list} to its own {@code struct ibv_sge} in {@link #sgesAt}, set once here
     * and never changed but by the post, which ends the list after the chain's last request for the call and then
     * points it at the following one again. Only the library writes these structs, so whatever another thread does
     * to the chain meanwhile (misuse: a chain is one thread's), the provider finds a list inside them, ended at the
     * last one at the latest. Memory of an automatic arena: freed only once the chain is unreachable, so it outlives
     * any post of it (each holds the chain to its end, Reference.reachabilityFence).
     */
    final long wrsAt;

    final long sgesAt;
    static final long WR_SIZE = ibv_send_wr.layout().byteSize();
    static final long SGE_SIZE = ibv_sge.layout().byteSize();

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
        this.regions = new MemoryRegion[capacity];
        Arena memory = Arena.ofAuto();
        this.wrsAt = memory.allocate(ibv_send_wr.layout(), capacity).address();
        this.sgesAt = memory.allocate(ibv_sge.layout(), capacity).address();
        for (int i = 0; i < capacity; i++) {
            long wr = wrsAt + i * WR_SIZE;
            AllMemory.EVERYWHERE.set(JAVA_LONG, wr + ibv_send_wr.next$OFFSET, following(i));
            AllMemory.EVERYWHERE.set(JAVA_LONG, wr + ibv_send_wr.sg_list$OFFSET, sgesAt + i * SGE_SIZE);
            AllMemory.EVERYWHERE.set(JAVA_INT, wr + ibv_send_wr.num_sge$OFFSET, 1);
        }
        Reference.reachabilityFence(memory);
    }

    /** What request {@code i}'s {@code next} holds between posts: the following request, or NULL after the last. */
    long following(int i) {
        return i + 1 < capacity ? wrsAt + (i + 1) * WR_SIZE : 0L;
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
        return field(JAVA_LONG, i, ibv_send_wr.wr_id$OFFSET);
    }

    // request i's fields as added, for the posts that build requests from them (ibv_wr_*); i below count
    int flags(int i) {
        return field(JAVA_INT, i, ibv_send_wr.send_flags$OFFSET);
    }

    /** In host byte order, as added. */
    int immediate(int i) {
        return Integer.reverseBytes(field(JAVA_INT, i, ibv_send_wr.$anon0$imm_data$OFFSET));
    }

    long remoteAddress(int i) {
        return field(JAVA_LONG, i, ibv_send_wr.wr$rdma$remote_addr$OFFSET);
    }

    int rkey(int i) {
        return field(JAVA_INT, i, ibv_send_wr.wr$rdma$rkey$OFFSET);
    }

    long address(int i) {
        return sgeField(JAVA_LONG, i, ibv_sge.addr$OFFSET);
    }

    int length(int i) {
        return sgeField(JAVA_INT, i, ibv_sge.length$OFFSET);
    }

    int lkey(int i) {
        return sgeField(JAVA_INT, i, ibv_sge.lkey$OFFSET);
    }

    private long field(ValueLayout.OfLong layout, int i, long offset) {
        long v = AllMemory.EVERYWHERE.get(layout, wrsAt + i * WR_SIZE + offset);
        Reference.reachabilityFence(this);
        return v;
    }

    private int field(ValueLayout.OfInt layout, int i, long offset) {
        int v = AllMemory.EVERYWHERE.get(layout, wrsAt + i * WR_SIZE + offset);
        Reference.reachabilityFence(this);
        return v;
    }

    private long sgeField(ValueLayout.OfLong layout, int i, long offset) {
        long v = AllMemory.EVERYWHERE.get(layout, sgesAt + i * SGE_SIZE + offset);
        Reference.reachabilityFence(this);
        return v;
    }

    private int sgeField(ValueLayout.OfInt layout, int i, long offset) {
        int v = AllMemory.EVERYWHERE.get(layout, sgesAt + i * SGE_SIZE + offset);
        Reference.reachabilityFence(this);
        return v;
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
        long wr = wrsAt + i * WR_SIZE;
        long sge = sgesAt + i * SGE_SIZE;
        AllMemory.EVERYWHERE.set(JAVA_LONG, wr + ibv_send_wr.wr_id$OFFSET, wrId);
        AllMemory.EVERYWHERE.set(JAVA_INT, wr + ibv_send_wr.opcode$OFFSET, op.wrOpcode);
        AllMemory.EVERYWHERE.set(JAVA_INT, wr + ibv_send_wr.send_flags$OFFSET, flags);
        AllMemory.EVERYWHERE.set(JAVA_INT, wr + ibv_send_wr.$anon0$imm_data$OFFSET, Integer.reverseBytes(immediate));
        AllMemory.EVERYWHERE.set(JAVA_LONG, wr + ibv_send_wr.wr$rdma$remote_addr$OFFSET, remoteAddress);
        AllMemory.EVERYWHERE.set(JAVA_INT, wr + ibv_send_wr.wr$rdma$rkey$OFFSET, rkey);
        AllMemory.EVERYWHERE.set(JAVA_LONG, sge + ibv_sge.addr$OFFSET, mr.address() + offset);
        AllMemory.EVERYWHERE.set(JAVA_INT, sge + ibv_sge.length$OFFSET, length);
        AllMemory.EVERYWHERE.set(JAVA_INT, sge + ibv_sge.lkey$OFFSET, mr.lkey());
        Reference.reachabilityFence(this);
        ops[i] = op;
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
