package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.VerbsOps;
import org.panamardma.verbs.ffi.ibv_mw_bind_info;
import org.panamardma.verbs.ffi.ibv_send_wr;
import org.panamardma.verbs.ffi.ibv_sge;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * The send backend of a QP without the extended API (siw): one {@code struct ibv_send_wr} and its scatter/gather
 * array in the QP's scratch, filled and handed to the provider's {@code post_send} (the function pointer
 * {@code ibv_post_send} inlines to). See {@link SendPath} for the calling contract.
 */
final class LegacySendPath extends SendPath {
    static {
        if (ibv_send_wr.wr$rdma$remote_addr$OFFSET != ibv_send_wr.wr$atomic$remote_addr$OFFSET) {
            throw new ExceptionInInitializerError("wr.rdma.remote_addr and wr.atomic.remote_addr differ in offset");
        }
    }

    private final MemorySegment postSendFn;
    private final MemorySegment qp;
    private final MemorySegment sendWr;
    private final MemorySegment sendSge;
    private final MemorySegment badWr;
    /** The addresses of sendWr and sendSge, for the stores of each post (through AllMemory, see there). */
    private final long wrAt;

    private final long sgeAt;
    /** Whether post_send stays in user space on this provider (ProviderTraits): then the downcall is critical. */
    private final boolean critical;
    /**
     * {@link SendChain#MAX_REQUESTS} requests of one element each, linked in order ({@code next} of each is the
     * following one) and pointed at their elements once at creation, for {@link #postChain}: a chain of n cuts the
     * list after its n-th request for the call and links it again after (as QueuePair's receive batches).
     */
    private final long chainWrsAt;

    private final long chainSgesAt;
    private static final long WR_SIZE = ibv_send_wr.layout().byteSize();
    private static final long SGE_SIZE = ibv_sge.layout().byteSize();

    /*
     * What the QP's ibv_send_wr holds now, field by field: a field is stored only when its value changes. Why: a store
     * through a MemorySegment costs about 1 ns with its checks (bounds, alignment), and of the ten fields of a request
     * most are the same from one post to the next (measured on the stub provider: 8 ns of a post of 50). Exact because
     * only this class writes the struct (the provider reads it, ibv_post_send(3): the list is not modified) and the
     * scratch starts zeroed, as these do. wr_id is stored every time; the first scatter/gather element is shadowed
     * the same way (sgeAddress, sgeLength, sgeLkey), except after a list was copied over it.
     */
    private int numSge;
    private int opcode;
    private int flags;
    /** imm_data as stored (big-endian), or a local invalidation's key: the two share a union. */
    private int immediate;
    /** Which member of the request's union ({@code wr.rdma} or {@code wr.atomic}) the four below describe. */
    private boolean atomicUnion;

    private long remoteAddress;
    private int rkey;
    private long compareAdd;
    private long swap;
    private long sgeAddress;
    private int sgeLength;
    private int sgeLkey;

    /** The scratch segments are the QP's (global-scope views, see QueuePair.unscoped). */
    LegacySendPath(
            MemorySegment postSendFn,
            MemorySegment qp,
            String qpDescription,
            int sendQueueDepth,
            MemorySegment inlineScratch,
            MemorySegment sendWr,
            MemorySegment sendSge,
            MemorySegment badWr,
            MemorySegment chainWrs,
            MemorySegment chainSges,
            boolean critical) {
        super(qpDescription, sendQueueDepth, inlineScratch);
        this.critical = critical;
        this.postSendFn = postSendFn;
        this.qp = qp;
        this.sendWr = sendWr;
        this.sendSge = sendSge;
        this.badWr = badWr;
        this.wrAt = sendWr.address();
        this.sgeAt = sendSge.address();
        sendWr.set(ADDRESS, ibv_send_wr.sg_list$OFFSET, sendSge);
        sendWr.set(JAVA_LONG, ibv_send_wr.next$OFFSET, 0L); // one request per post, always
        this.chainWrsAt = chainWrs.address();
        this.chainSgesAt = chainSges.address();
        for (int i = 0; i < SendChain.MAX_REQUESTS; i++) {
            long wr = i * WR_SIZE;
            chainWrs.set(
                    JAVA_LONG,
                    wr + ibv_send_wr.next$OFFSET,
                    i + 1 < SendChain.MAX_REQUESTS ? chainWrsAt + wr + WR_SIZE : 0L);
            chainWrs.set(JAVA_LONG, wr + ibv_send_wr.sg_list$OFFSET, chainSgesAt + i * SGE_SIZE);
            chainWrs.set(JAVA_INT, wr + ibv_send_wr.num_sge$OFFSET, 1);
        }
    }

    /**
     * One ibv_post_send of the chain's first {@code n} requests as a linked list: one call, one doorbell. Every
     * field a chain's request uses is stored for each (the shadows above are the single request's, in its own
     * struct). If the provider refuses one, bad_wr says which: those before it were posted, it and those after not.
     */
    @Override
    void postChain(SendChain chain, int n) throws RdmaException {
        for (int i = 0; i < n; i++) {
            long wr = chainWrsAt + i * WR_SIZE;
            long sge = chainSgesAt + i * SGE_SIZE;
            AllMemory.EVERYWHERE.set(JAVA_LONG, wr + ibv_send_wr.wr_id$OFFSET, chain.wrIds[i]);
            AllMemory.EVERYWHERE.set(JAVA_INT, wr + ibv_send_wr.opcode$OFFSET, chain.ops[i].wrOpcode);
            AllMemory.EVERYWHERE.set(JAVA_INT, wr + ibv_send_wr.send_flags$OFFSET, chain.flags[i]);
            AllMemory.EVERYWHERE.set(
                    JAVA_INT, wr + ibv_send_wr.$anon0$imm_data$OFFSET, Integer.reverseBytes(chain.immediates[i]));
            AllMemory.EVERYWHERE.set(JAVA_LONG, wr + ibv_send_wr.wr$rdma$remote_addr$OFFSET, chain.remoteAddresses[i]);
            AllMemory.EVERYWHERE.set(JAVA_INT, wr + ibv_send_wr.wr$rdma$rkey$OFFSET, chain.rkeys[i]);
            AllMemory.EVERYWHERE.set(JAVA_LONG, sge + ibv_sge.addr$OFFSET, chain.addresses[i]);
            AllMemory.EVERYWHERE.set(JAVA_INT, sge + ibv_sge.length$OFFSET, chain.lengths[i]);
            AllMemory.EVERYWHERE.set(JAVA_INT, sge + ibv_sge.lkey$OFFSET, chain.lkeys[i]);
        }
        long last = chainWrsAt + (n - 1) * WR_SIZE + ibv_send_wr.next$OFFSET;
        long after = AllMemory.EVERYWHERE.get(JAVA_LONG, last);
        AllMemory.EVERYWHERE.set(JAVA_LONG, last, 0L); // the list ends with this chain
        int rc;
        try {
            rc = call(chainWrsAt);
        } finally {
            AllMemory.EVERYWHERE.set(JAVA_LONG, last, after);
        }
        if (rc != 0) {
            long bad = badWr.get(JAVA_LONG, 0);
            long index = (bad - chainWrsAt) / WR_SIZE;
            // a provider that names no request of the list: the chain's fate is unknown, say so rather than guess
            if (bad < chainWrsAt || index >= n || (bad - chainWrsAt) % WR_SIZE != 0) {
                throw postFailure(
                        "ibv_post_send (a chain of " + n + ": the provider named no request of it as "
                                + "refused, so how many were posted is unknown)",
                        rc);
            }
            throw chainFailure("ibv_post_send", rc, (int) index, n);
        }
    }

    @Override
    void post(
            Op op,
            long wrId,
            int flags,
            long remoteAddress,
            int rkey,
            int immediate,
            long compareAdd,
            long swap,
            long addr,
            int length,
            int lkey)
            throws RdmaException {
        sge(addr, length, lkey);
        postSend(op, wrId, 1, remoteAddress, rkey, immediate, compareAdd, swap, flags);
    }

    @Override
    void postList(
            Op op, long wrId, int flags, long remoteAddress, int rkey, int immediate, MemorySegment sges, int count)
            throws RdmaException {
        MemorySegment.copy(sges, 0, sendSge, 0, count * ScatterGatherList.SGE_SIZE);
        sgeLength = -1; // the first element is the list's now: store it again at the next single post
        postSend(op, wrId, count, remoteAddress, rkey, immediate, 0L, 0L, flags);
    }

    @Override
    void postInlineScratch(Op op, long wrId, int flags, long remoteAddress, int rkey, int immediate, long length)
            throws RdmaException {
        sge(inlineScratch.address(), (int) length, 0);
        postSend(op, wrId, 1, remoteAddress, rkey, immediate, 0L, 0L, flags);
    }

    @Override
    void postBindWindow(
            long wrId, int flags, MemorySegment mw, int newRkey, MemorySegment mr, long addr, long length, int access)
            throws RdmaException {
        // bind_mw is a union of its own (with tso), apart from wr.rdma and wr.atomic: their shadows stay true
        long info = ibv_send_wr.$anon1$bind_mw$bind_info$OFFSET;
        sendWr.set(ADDRESS, ibv_send_wr.$anon1$bind_mw$mw$OFFSET, mw);
        sendWr.set(JAVA_INT, ibv_send_wr.$anon1$bind_mw$rkey$OFFSET, newRkey);
        sendWr.set(ADDRESS, info + ibv_mw_bind_info.mr$OFFSET, mr);
        sendWr.set(JAVA_LONG, info + ibv_mw_bind_info.addr$OFFSET, addr);
        sendWr.set(JAVA_LONG, info + ibv_mw_bind_info.length$OFFSET, length);
        sendWr.set(JAVA_INT, info + ibv_mw_bind_info.mw_access_flags$OFFSET, access);
        // a bind carries no data and no immediate: rxe's validate_send_wr refuses either with EINVAL, and the
        // imm_data union still holds what the previous request left there (an invalidated key, say)
        header(wrId, 0, verbs_h.IBV_WR_BIND_MW, flags, 0);
        invoke();
    }

    @Override
    void postLocalInvalidate(long wrId, int flags, int rkey) throws RdmaException {
        // invalidate_rkey shares its union with imm_data, in host byte order: through the immediate's shadow, so
        // that the next SEND_WITH_IMM stores its own immediate over the key instead of carrying the key
        header(wrId, 0, verbs_h.IBV_WR_LOCAL_INV, flags, rkey);
        invoke();
    }

    private void sge(long addr, int length, int lkey) {
        if (addr != sgeAddress || length != sgeLength || lkey != sgeLkey) {
            AllMemory.EVERYWHERE.set(JAVA_LONG, sgeAt + ibv_sge.addr$OFFSET, addr);
            AllMemory.EVERYWHERE.set(JAVA_INT, sgeAt + ibv_sge.length$OFFSET, length);
            AllMemory.EVERYWHERE.set(JAVA_INT, sgeAt + ibv_sge.lkey$OFFSET, lkey);
            sgeAddress = addr;
            sgeLength = length;
            sgeLkey = lkey;
        }
    }

    private void postSend(
            Op op,
            long wrId,
            int numSge,
            long remoteAddress,
            int rkey,
            int immediate,
            long compareAdd,
            long swap,
            int flags)
            throws RdmaException {
        header(wrId, numSge, op.wrOpcode, flags, Integer.reverseBytes(immediate));
        boolean atomic = op.atomic();
        boolean switched = atomic != atomicUnion; // the other member overlaps: write all of it
        atomicUnion = atomic;
        if (switched || remoteAddress != this.remoteAddress) {
            // wr.rdma.remote_addr and wr.atomic.remote_addr are both at the union's start
            AllMemory.EVERYWHERE.set(JAVA_LONG, wrAt + ibv_send_wr.wr$rdma$remote_addr$OFFSET, remoteAddress);
            this.remoteAddress = remoteAddress;
        }
        if (atomic) {
            if (switched || compareAdd != this.compareAdd) {
                AllMemory.EVERYWHERE.set(JAVA_LONG, wrAt + ibv_send_wr.wr$atomic$compare_add$OFFSET, compareAdd);
                this.compareAdd = compareAdd;
            }
            if (switched || swap != this.swap) {
                AllMemory.EVERYWHERE.set(JAVA_LONG, wrAt + ibv_send_wr.wr$atomic$swap$OFFSET, swap);
                this.swap = swap;
            }
            if (switched || rkey != this.rkey) {
                AllMemory.EVERYWHERE.set(JAVA_INT, wrAt + ibv_send_wr.wr$atomic$rkey$OFFSET, rkey);
                this.rkey = rkey;
            }
        } else if (switched || rkey != this.rkey) {
            AllMemory.EVERYWHERE.set(JAVA_INT, wrAt + ibv_send_wr.wr$rdma$rkey$OFFSET, rkey);
            this.rkey = rkey;
        }
        invoke();
    }

    /**
     * The request's first fields, each stored only if it differs from what the struct holds. Every request that
     * writes them goes through here, the bind and the invalidation too: a field one of those stored behind the
     * shadows' back would stay in the struct for the next post that believes it unchanged.
     *
     * @param immOrKey imm_data as it goes into the struct (big-endian), or the local invalidation's key (its union)
     */
    private void header(long wrId, int numSge, int opcode, int flags, int immOrKey) {
        AllMemory.EVERYWHERE.set(JAVA_LONG, wrAt + ibv_send_wr.wr_id$OFFSET, wrId);
        if (numSge != this.numSge) {
            AllMemory.EVERYWHERE.set(JAVA_INT, wrAt + ibv_send_wr.num_sge$OFFSET, numSge);
            this.numSge = numSge;
        }
        if (opcode != this.opcode) {
            AllMemory.EVERYWHERE.set(JAVA_INT, wrAt + ibv_send_wr.opcode$OFFSET, opcode);
            this.opcode = opcode;
        }
        if (flags != this.flags) {
            AllMemory.EVERYWHERE.set(JAVA_INT, wrAt + ibv_send_wr.send_flags$OFFSET, flags);
            this.flags = flags;
        }
        if (immOrKey != this.immediate) {
            AllMemory.EVERYWHERE.set(JAVA_INT, wrAt + ibv_send_wr.$anon0$imm_data$OFFSET, immOrKey);
            this.immediate = immOrKey;
        }
    }

    private void invoke() throws RdmaException {
        int rc = call(wrAt);
        if (rc != 0) {
            throw postFailure("ibv_post_send", rc);
        }
    }

    /** post_send of the list at {@code wrs}. */
    private int call(long wrs) {
        try {
            // the QP, its scratch: kept alive by the QP's CallGate around this call (VerbsOps: addresses as longs)
            return critical
                    ? (int) VerbsOps.POST_WR_CRITICAL.invokeExact(postSendFn, qp.address(), wrs, badWr.address())
                    : (int) VerbsOps.POST_WR.invokeExact(postSendFn, qp.address(), wrs, badWr.address());
        } catch (Throwable t) {
            throw CompletionQueue.verbsError(t);
        }
    }
}
