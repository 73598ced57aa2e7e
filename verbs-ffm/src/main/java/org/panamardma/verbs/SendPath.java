package org.panamardma.verbs;

import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * How a queue pair's send requests reach the provider: {@link ExtendedSendPath} (the {@code ibv_wr_*} verbs of
 * {@code ibv_qp_ex}) where the device offers it, {@link LegacySendPath} ({@code ibv_post_send}) where it does not.
 * {@link SendPosting} chooses one at creation and keeps everything the two share: argument validation, the
 * capabilities, the inline scratch; the QP's {@link CallGate} serializes the posts.
 *
 * <p>Every method here is called inside the QP's gate, after the QP was checked open and connected and every
 * argument validated. A backend reads the caller's memory (inline bytes, a scatter/gather list) only before its
 * first native call, copying it into the QP's scratch, so that nothing on our side can fail between the first and
 * the last native call of a request (which on the extended path would leave a started request, and on rxe the send
 * queue's lock, behind: see {@link ExtendedSendPath}). The scratch memory the backends write is the QP's and is
 * freed only by its {@code destroy()}, once the gate is closed.
 */
abstract sealed class SendPath permits ExtendedSendPath, LegacySendPath {

    /** The send opcodes both backends build. */
    enum Op {
        SEND(verbs_h.IBV_WR_SEND),
        SEND_WITH_IMM(verbs_h.IBV_WR_SEND_WITH_IMM),
        WRITE(verbs_h.IBV_WR_RDMA_WRITE),
        WRITE_WITH_IMM(verbs_h.IBV_WR_RDMA_WRITE_WITH_IMM),
        READ(verbs_h.IBV_WR_RDMA_READ),
        COMPARE_SWAP(verbs_h.IBV_WR_ATOMIC_CMP_AND_SWP),
        FETCH_ADD(verbs_h.IBV_WR_ATOMIC_FETCH_AND_ADD);

        final int wrOpcode;

        Op(int wrOpcode) {
            this.wrOpcode = wrOpcode;
        }

        boolean atomic() {
            return this == COMPARE_SWAP || this == FETCH_ADD;
        }

        boolean immediate() {
            return this == SEND_WITH_IMM || this == WRITE_WITH_IMM;
        }
    }

    /** For messages: the QP's {@code describe()}, e.g. "queue pair 17 on rxe0". */
    private final String qpDescription;

    private final int sendQueueDepth;
    /** The QP's inline scratch (see {@link QueuePair}): bytes the provider copies during the post call. */
    final MemorySegment inlineScratch;

    SendPath(String qpDescription, int sendQueueDepth, MemorySegment inlineScratch) {
        this.qpDescription = qpDescription;
        this.sendQueueDepth = sendQueueDepth;
        this.inlineScratch = inlineScratch;
    }

    /** One request of one scatter/gather element ({@code lkey} 0 and the INLINE flag: inline bytes at addr). */
    abstract void post(
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
            throws RdmaException;

    /** One request gathering {@code count} elements laid out as {@code struct ibv_sge} in {@code sges}. */
    abstract void postList(
            Op op, long wrId, int flags, long remoteAddress, int rkey, int immediate, MemorySegment sges, int count)
            throws RdmaException;

    /** One inline request of the first {@code length} bytes of {@link #inlineScratch}. */
    abstract void postInlineScratch(
            Op op, long wrId, int flags, long remoteAddress, int rkey, int immediate, long length) throws RdmaException;

    /**
     * One inline request of the caller's native segment {@code data} (at most the inline scratch's size), copied
     * into the inline scratch first: a closed arena throws there, before anything is posted. (Handing data itself to
     * the provider would let another thread free it under ibv_post_send, which reads it from an address in the work
     * request, and would have the FFM runtime check its arena inside ibv_wr_*'s region, where a closed one threw
     * with the region open: issue 25 item 4.) MemorySegment.copy either has the bytes or throws, and a concurrent
     * close cannot free them in mid-copy (the runtime's handshake).
     */
    final void postInlineData(Op op, long wrId, int flags, long remoteAddress, int rkey, MemorySegment data)
            throws RdmaException {
        MemorySegment.copy(data, 0, inlineScratch, 0, data.byteSize());
        postInlineScratch(op, wrId, flags, remoteAddress, rkey, 0, data.byteSize());
    }

    /**
     * {@code IBV_WR_BIND_MW}: binds the type 2 window {@code mw} under {@code newRkey} to {@code [addr, addr + length)}
     * of the region {@code mr} with {@code access} (ibv_access_flags bits). Both are the provider's structs; it reads
     * them during the call (rxe: the window's current key and the region's lkey), so the caller keeps them open.
     */
    abstract void postBindWindow(
            long wrId, int flags, MemorySegment mw, int newRkey, MemorySegment mr, long addr, long length, int access)
            throws RdmaException;

    /** {@code IBV_WR_LOCAL_INV}: invalidates the window (or fast-registered region) of {@code rkey}. */
    abstract void postLocalInvalidate(long wrId, int flags, int rkey) throws RdmaException;

    /**
     * The first {@code n} requests of {@code chain} in one post (one doorbell), in order. The caller checked
     * {@code n} against {@link SendChain#MAX_REQUESTS} and the send queue, the opcodes, and the regions open.
     *
     * @throws ChainPostException if the provider refused one: which, and how many before it were posted
     */
    abstract void postChain(SendChain chain, int n) throws RdmaException;

    final RdmaException postFailure(String verb, int rc) {
        return postFailure(verb, qpDescription, rc, sendQueueDepth, "send");
    }

    /**
     * The failure of a chain's post: request {@code posted} of {@code n} refused, those before it posted; or, if the
     * doorbell was refused, a {@link DoorbellRefusedException} (the whole chain is on the send queue then).
     */
    final RdmaException chainFailure(String verb, int rc, int posted, int n) {
        String operation = postOperation(verb, qpDescription, rc, sendQueueDepth, "send");
        if (doorbellRefused(rc)) {
            return new DoorbellRefusedException(operation + " (a chain of " + n + ")", postErrno(rc));
        }
        return new ChainPostException(operation, postErrno(rc), posted, n);
    }

    /**
     * Why a post fails with EACCES: a provider that rings its doorbell with a command written to the device's file
     * (rxe does, on every post) finds it refused when the posting thread's credentials are not the ones the file was
     * opened with (include/rdma/ib.h, {@code ib_safe_file_access}, compares the credentials themselves, so a thread
     * that changed its file-system ids, groups or capabilities and changed them back is refused too). rxe has queued
     * the request before it rings: the next post that rings from another thread carries it out.
     */
    static final String CREDENTIALS_CHANGED = ": the kernel refused the doorbell command, as it does from a thread"
            + " whose credentials changed after the device was opened (setfsuid, setgroups, capset; even changed"
            + " back: include/rdma/ib.h, ib_safe_file_access), or that was started by such a thread; post from a"
            + " thread that never had them changed. The request is queued and would run at the next post (rxe)";

    /**
     * Why a post returns -1, which is no errno: siw returns what its doorbell's {@code write()} returned, -1, when
     * the kernel refused it (the errno, EACCES from a thread whose credentials changed, is lost on the way). The
     * request stays in siw's send queue, which then looks busy to later posts: they ring no doorbell, and the queue
     * pair sends nothing more (trixie's siw, 2026-11-29: the next post from a clean thread never completed).
     */
    static final String DOORBELL_FAILED = ": the provider returned -1: siw does when the kernel refuses its doorbell"
            + " write(), as it does from a thread whose credentials changed after the device was opened"
            + " (include/rdma/ib.h, ib_safe_file_access) or was started by such a thread, and its send queue then"
            + " sends nothing more; post only from threads that never had them changed";

    /** The errno a post's return code {@code rc} carries: either sign; 0 for siw's -1, which carries none. */
    static int postErrno(int rc) {
        return rc == -1 ? 0 : Math.abs(rc);
    }

    /**
     * The failure of a post call on {@code qp}'s {@code queue}: the errno, and what ENOMEM/ENOSPC mean there; a
     * {@link DoorbellRefusedException} where the send queue's doorbell was refused.
     */
    static RdmaException postFailure(String verb, String qp, int rc, int depth, String queue) {
        String operation = postOperation(verb, qp, rc, depth, queue);
        return queue.equals("send") && doorbellRefused(rc)
                ? new DoorbellRefusedException(operation, postErrno(rc))
                : new RdmaException(operation, postErrno(rc));
    }

    /**
     * Whether return code {@code rc} of a send post says the kernel refused its doorbell: EACCES (rxe, from the
     * doorbell's {@code write()}; no provider refuses a request itself with it), or siw's -1.
     */
    static boolean doorbellRefused(int rc) {
        return rc == -1 || Math.abs(rc) == Errno.EACCES;
    }

    private static String postOperation(String verb, String qp, int rc, int depth, String queue) {
        int errno = Math.abs(rc);
        // providers differ: most say ENOMEM, rxe's ibv_wr_complete says ENOSPC
        String why = errno == Errno.ENOMEM || errno == Errno.ENOSPC
                ? ": the " + queue + " queue is full (" + depth + " outstanding requests); poll completions first"
                : rc == -1 ? DOORBELL_FAILED : errno == Errno.EACCES ? CREDENTIALS_CHANGED : "";
        return verb + " on " + qp + why;
    }
}
