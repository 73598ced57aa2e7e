package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Reference;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.VerbsOps;
import org.panamardma.verbs.ffi.ibv_cq;
import org.panamardma.verbs.ffi.ibv_cq_ex;
import org.panamardma.verbs.ffi.ibv_cq_init_attr_ex;
import org.panamardma.verbs.ffi.ibv_wc;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * A completion queue. {@link #poll(WorkCompletions)} is the data path: one call through the provider's
 * {@code poll_cq}, nothing allocated. With a {@link CompletionChannel}, {@link #requestNotification(boolean)} arms
 * it for one event.
 *
 * <p>A CQ made with {@code ibv_create_cq_ex} ({@link #isExtended()}) is polled with {@code ibv_poll_cq} too where
 * the provider serves such CQs with it (rxe, mlx5: {@link ProviderTraits}): one call per batch where the extended
 * poll takes seven or eight per completion. Elsewhere it is polled with {@code ibv_start_poll} /
 * {@code ibv_next_poll} / {@code ibv_end_poll}, each completion read into the same {@code ibv_wc} array.
 *
 * <p>Polls pass the CQ's {@link CallGate} (one at a time, none after close) rather than its monitor.
 *
 * <p>Verb of {@link #close()}: {@code ibv_destroy_cq}.
 */
@Verb("ibv_destroy_cq")
public final class CompletionQueue extends NativeResource {
    final Context context;
    final MemorySegment handle;
    private final CompletionChannel channel;
    private final int capacity;
    private final MemorySegment pollCqFn;
    private final MemorySegment reqNotifyCqFn;

    // extended polling (ibv_cq_ex): the function pointers, or NULL when the CQ is a legacy one
    private final boolean extended;
    /** Whether polls go through ibv_start_poll (an extended CQ of a provider not known to serve it with poll_cq). */
    private boolean extendedPolling;
    /** Whether poll_cq stays in user space on this provider (ProviderTraits): then its downcall is critical. */
    private final boolean criticalPoll;

    private final CallGate gate = new CallGate();
    private final MemorySegment cqx;
    private final MemorySegment startPollFn,
            nextPollFn,
            endPollFn,
            readOpcodeFn,
            readVendorErrFn,
            readByteLenFn,
            readImmDataFn,
            readQpNumFn,
            readWcFlagsFn;
    // true where ibv_next_poll's ENOENT followed by ibv_end_poll corrupts the queue (see RdmaCore.Quirk)
    private final boolean oneCompletionPerBatch;

    private CompletionQueue(Context context, MemorySegment handle, CompletionChannel channel, boolean extended) {
        super(
                "completion queue",
                channel == null ? new NativeResource[] {context} : new NativeResource[] {context, channel});
        this.context = context;
        this.handle = handle;
        context.track(handle, this);
        this.channel = channel;
        this.capacity = handle.get(JAVA_INT, ibv_cq.cqe$OFFSET);
        this.pollCqFn = context.pollCqFn;
        this.reqNotifyCqFn = context.reqNotifyCqFn;
        this.extended = extended;
        this.extendedPolling = extended && !context.providerTraits.pollsExtendedCqWithPollCq();
        this.criticalPoll = context.providerTraits.pollCritical();
        if (extended) {
            this.cqx = handle.reinterpret(ibv_cq_ex.layout().byteSize());
            this.startPollFn = cqx.get(ADDRESS, ibv_cq_ex.start_poll$OFFSET);
            this.nextPollFn = cqx.get(ADDRESS, ibv_cq_ex.next_poll$OFFSET);
            this.endPollFn = cqx.get(ADDRESS, ibv_cq_ex.end_poll$OFFSET);
            this.readOpcodeFn = cqx.get(ADDRESS, ibv_cq_ex.read_opcode$OFFSET);
            this.readVendorErrFn = cqx.get(ADDRESS, ibv_cq_ex.read_vendor_err$OFFSET);
            this.readByteLenFn = cqx.get(ADDRESS, ibv_cq_ex.read_byte_len$OFFSET);
            this.readImmDataFn = cqx.get(ADDRESS, ibv_cq_ex.read_imm_data$OFFSET);
            this.readQpNumFn = cqx.get(ADDRESS, ibv_cq_ex.read_qp_num$OFFSET);
            this.readWcFlagsFn = cqx.get(ADDRESS, ibv_cq_ex.read_wc_flags$OFFSET);
            this.oneCompletionPerBatch = RdmaCore.Quirk.RXE_END_POLL_OVERRUN.affects(context);
        } else {
            this.oneCompletionPerBatch = false;
            this.cqx = MemorySegment.NULL;
            this.startPollFn = this.nextPollFn = this.endPollFn = this.readOpcodeFn = MemorySegment.NULL;
            this.readVendorErrFn = this.readByteLenFn = this.readImmDataFn = this.readQpNumFn = MemorySegment.NULL;
            this.readWcFlagsFn = MemorySegment.NULL;
        }
    }

    static CompletionQueue create(Context context, int capacity, CompletionChannel channel, boolean extended)
            throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment callState = arena.allocate(Native.CALL_STATE);
            MemorySegment channelHandle = channel == null ? MemorySegment.NULL : channel.handle;
            MemorySegment cq;
            boolean isExtended = extended && context.createCqExFn.address() != 0;
            if (isExtended) {
                MemorySegment attr = arena.allocate(ibv_cq_init_attr_ex.layout());
                attr.set(JAVA_INT, ibv_cq_init_attr_ex.cqe$OFFSET, capacity);
                attr.set(ADDRESS, ibv_cq_init_attr_ex.channel$OFFSET, channelHandle);
                attr.set(
                        JAVA_LONG,
                        ibv_cq_init_attr_ex.wc_flags$OFFSET,
                        verbs_h.IBV_WC_EX_WITH_BYTE_LEN | verbs_h.IBV_WC_EX_WITH_IMM | verbs_h.IBV_WC_EX_WITH_QP_NUM);
                try {
                    cq = (MemorySegment)
                            VerbsOps.CREATE_CQ_EX.invokeExact(context.createCqExFn, callState, context.handle, attr);
                } catch (Throwable t) {
                    throw verbsError(t);
                }
            } else {
                cq = verbs_h.ibv_create_cq(callState, context.handle, capacity, MemorySegment.NULL, channelHandle, 0);
            }
            if (cq.equals(MemorySegment.NULL)) {
                throw new RdmaException(
                        (isExtended ? "ibv_create_cq_ex(" : "ibv_create_cq(") + capacity + " entries on "
                                + context.deviceName() + ")",
                        Native.errno(callState));
            }
            // an ibv_cq_ex starts with the fields of an ibv_cq (ibv_cq_ex_to_cq is a cast)
            CompletionQueue q =
                    new CompletionQueue(context, cq.reinterpret(ibv_cq.layout().byteSize()), channel, isExtended);
            if (channel != null) {
                channel.attach(q);
            }
            return q;
        }
    }

    /** {@return the number of entries the device gave the queue (at least what was asked)} */
    public int capacity() {
        return capacity;
    }

    /** {@return the device context the CQ is on} */
    public Context context() {
        return context;
    }

    /**
     * Polls up to {@code completions.capacity()} completions into {@code completions} and returns how many
     * ({@link WorkCompletions#count()} too). Allocates nothing.
     *
     * <p>Verbs: {@code ibv_poll_cq}, {@code ibv_start_poll}, {@code ibv_next_poll}, {@code ibv_end_poll}, {@code ibv_wc_read_opcode}, {@code ibv_wc_read_vendor_err}, {@code ibv_wc_read_byte_len}, {@code ibv_wc_read_imm_data}, {@code ibv_wc_read_qp_num}, {@code ibv_wc_read_wc_flags}.
     *
     * @param completions where the entries go, reused call after call; its capacity bounds one poll
     * @return how many completions were taken, 0 when the queue is empty
     * @throws RdmaException with EIO if the provider's poll returned an error (the CQ is then unusable)
     * @throws IllegalStateException if the queue is closed
     */
    @Verb("ibv_poll_cq")
    @Verb("ibv_start_poll")
    @Verb("ibv_next_poll")
    @Verb("ibv_end_poll")
    @Verb("ibv_wc_read_opcode")
    @Verb("ibv_wc_read_vendor_err")
    @Verb("ibv_wc_read_byte_len")
    @Verb("ibv_wc_read_imm_data")
    @Verb("ibv_wc_read_qp_num")
    @Verb("ibv_wc_read_wc_flags")
    public int poll(WorkCompletions completions) throws RdmaException {
        completions.checkOpen(); // before the provider hands over anything: a refused poll consumes nothing
        int n;
        if (!gate.enter()) {
            throw new IllegalStateException(describe() + " is closed");
        }
        try {
            if (extendedPolling) {
                n = pollExtended(completions);
            } else if (criticalPoll) {
                n = (int) VerbsOps.POLL_CQ_CRITICAL.invokeExact(
                        pollCqFn, handle.address(), completions.capacity(), completions.array.address());
            } else {
                n = (int) VerbsOps.POLL_CQ.invokeExact(
                        pollCqFn, handle.address(), completions.capacity(), completions.array.address());
            }
        } catch (Throwable t) {
            throw verbsError(t);
        } finally {
            gate.leave();
            // the array went to the provider as an address: its automatic arena must not be collected meanwhile
            Reference.reachabilityFence(completions);
        }
        if (n < 0) {
            completions.count(0);
            throw new RdmaException("ibv_poll_cq on " + context.deviceName(), Errno.EIO);
        }
        completions.count(n);
        return n;
    }

    /**
     * {@return whether this CQ was made with {@code ibv_create_cq_ex} (an {@code ibv_cq_ex}); it is then polled with
     * {@code ibv_start_poll} / {@code ibv_next_poll} unless the provider serves it with {@code ibv_poll_cq}}
     */
    public boolean isExtended() {
        return extended;
    }

    /** Whether polls go through {@code ibv_start_poll} / {@code ibv_next_poll} / {@code ibv_end_poll}; for tests. */
    boolean pollsWithExtendedApi() {
        return extendedPolling;
    }

    /** Makes an extended CQ polled with ibv_start_poll even where ibv_poll_cq serves it, to test that path. */
    CompletionQueue pollWithExtendedApiForTest() {
        if (!extended) {
            throw new IllegalStateException(describe() + " is not an extended CQ");
        }
        extendedPolling = true;
        return this;
    }

    /** Whether extended polling takes one completion per batch (RdmaCore.Quirk.RXE_END_POLL_OVERRUN); for tests. */
    boolean pollsOneCompletionPerBatch() {
        return oneCompletionPerBatch;
    }

    /**
     * Extended polling: {@code ibv_start_poll}, then {@code ibv_next_poll} until empty or full, then
     * {@code ibv_end_poll}, each completion read field by field into the same {@code ibv_wc} array the legacy path
     * fills, so callers see no difference. Returns -errno on failure, like poll_cq.
     */
    private int pollExtended(WorkCompletions completions) throws Throwable {
        if (oneCompletionPerBatch) {
            return pollExtendedOneByOne(completions);
        }
        int rc = (int) VerbsOps.START_POLL.invokeExact(startPollFn, cqx.address(), 0L);
        if (rc == Errno.ENOENT) {
            return 0;
        }
        if (rc != 0) {
            return -rc;
        }
        int n = 0;
        MemorySegment array = completions.array;
        long wcSize = ibv_wc.layout().byteSize();
        try {
            while (true) {
                readCurrent(array, n * wcSize);
                n++;
                if (n == completions.capacity()) {
                    break;
                }
                rc = (int) VerbsOps.CQ_INT.invokeExact(nextPollFn, cqx.address());
                if (rc != 0) {
                    break;
                }
            }
        } finally {
            // the backstop (nothing in the loop is expected to throw: the array cannot be freed under it, see
            // WorkCompletions): ibv_end_poll closes the batch whatever happened, else rxe's CQ lock, taken by
            // ibv_start_poll, stays held and the next poll of this CQ spins for ever (issue 25 item 4)
            endPoll();
        }
        return rc != 0 && rc != Errno.ENOENT ? -rc : n;
    }

    private void endPoll() throws Throwable {
        VerbsOps.CQ_VOID.invokeExact(endPollFn, cqx.address());
    }

    /**
     * Extended polling one completion per batch ({@code ibv_start_poll}, read, {@code ibv_end_poll}), never letting
     * {@code ibv_next_poll} find the queue empty: the workaround for {@link RdmaCore.Quirk#RXE_END_POLL_OVERRUN}.
     * A lock and a consumer-index store per completion instead of per batch.
     */
    private int pollExtendedOneByOne(WorkCompletions completions) throws Throwable {
        MemorySegment array = completions.array;
        long wcSize = ibv_wc.layout().byteSize();
        int n = 0;
        while (n < completions.capacity()) {
            int rc = (int) VerbsOps.START_POLL.invokeExact(startPollFn, cqx.address(), 0L);
            if (rc == Errno.ENOENT) {
                break;
            }
            if (rc != 0) {
                return n > 0 ? n : -rc;
            }
            try {
                readCurrent(array, n * wcSize);
            } finally {
                endPoll(); // as in pollExtended
            }
            n++;
        }
        return n;
    }

    /** Copies the completion the provider is positioned on into the ibv_wc at {@code base} of {@code array}. */
    private void readCurrent(MemorySegment array, long base) throws Throwable {
        int status = cqx.get(JAVA_INT, ibv_cq_ex.status$OFFSET);
        array.set(JAVA_LONG, base + ibv_wc.wr_id$OFFSET, cqx.get(JAVA_LONG, ibv_cq_ex.wr_id$OFFSET));
        array.set(JAVA_INT, base + ibv_wc.status$OFFSET, status);
        array.set(JAVA_INT, base + ibv_wc.vendor_err$OFFSET, (int)
                VerbsOps.CQ_INT.invokeExact(readVendorErrFn, cqx.address()));
        array.set(JAVA_INT, base + ibv_wc.qp_num$OFFSET, (int) VerbsOps.CQ_INT.invokeExact(readQpNumFn, cqx.address()));
        if (status == verbs_h.IBV_WC_SUCCESS) {
            // opcode, length, flags and immediate data are defined only for successful completions
            int flags = (int) VerbsOps.CQ_INT.invokeExact(readWcFlagsFn, cqx.address());
            array.set(JAVA_INT, base + ibv_wc.opcode$OFFSET, (int)
                    VerbsOps.CQ_INT.invokeExact(readOpcodeFn, cqx.address()));
            array.set(JAVA_INT, base + ibv_wc.byte_len$OFFSET, (int)
                    VerbsOps.CQ_INT.invokeExact(readByteLenFn, cqx.address()));
            array.set(JAVA_INT, base + ibv_wc.wc_flags$OFFSET, flags);
            // ibv_wc_read_invalidated_rkey is read_imm_data too: the two share the union
            array.set(
                    JAVA_INT,
                    base + ibv_wc.$anon0$imm_data$OFFSET,
                    (flags & (verbs_h.IBV_WC_WITH_IMM | verbs_h.IBV_WC_WITH_INV)) != 0
                            ? (int) VerbsOps.CQ_INT.invokeExact(readImmDataFn, cqx.address())
                            : 0);
        } else {
            array.set(JAVA_INT, base + ibv_wc.wc_flags$OFFSET, 0);
        }
    }

    /**
     * Arms the queue: the next completion (with {@code solicitedOnly}, the next solicited or error one) produces
     * one event on the channel. Poll again after arming: completions that arrived before it make no event.
     *
     * <p>Verb: {@code ibv_req_notify_cq}.
     *
     * @param solicitedOnly whether only a solicited or failed completion raises the event
     * @throws RdmaException with {@code ibv_req_notify_cq}'s errno
     * @throws IllegalStateException if the queue is closed or has no completion channel
     */
    @Verb("ibv_req_notify_cq")
    public void requestNotification(boolean solicitedOnly) throws RdmaException {
        if (channel == null) {
            throw new IllegalStateException(describe() + " has no completion channel");
        }
        int rc;
        if (!gate.enter()) {
            throw new IllegalStateException(describe() + " is closed");
        }
        try {
            rc = (int) VerbsOps.REQ_NOTIFY_CQ.invokeExact(reqNotifyCqFn, handle.address(), solicitedOnly ? 1 : 0);
        } catch (Throwable t) {
            throw verbsError(t);
        } finally {
            gate.leave();
        }
        if (rc != 0) {
            throw new RdmaException("ibv_req_notify_cq on " + context.deviceName(), rc);
        }
    }

    /** {@return the completion channel the CQ was created with, or null if none} */
    public CompletionChannel channel() {
        return channel;
    }

    static RuntimeException verbsError(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    @Override
    protected void destroy() {
        // no poll in progress, and none after this
        if (!gate.close(CallGate.CLOSE_TIMEOUT_NANOS)) {
            throw new IllegalStateException(describe() + ": a poll did not return within "
                    + CallGate.CLOSE_TIMEOUT_NANOS / 1_000_000_000 + " s; the CQ is left allocated rather than "
                    + "destroyed under it");
        }
        context.untrack(handle);
        if (channel != null) {
            channel.detach(this);
        }
        int rc = verbs_h.ibv_destroy_cq(handle);
        if (rc != 0) {
            throw new IllegalStateException("ibv_destroy_cq failed: " + Errno.name(rc));
        }
    }

    @Override
    protected String describe() {
        return "completion queue (" + capacity + " entries) on " + context.deviceName();
    }
}
