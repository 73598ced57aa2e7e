package org.panamardma.verbs;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.StubProvider;

/**
 * A queue pair on the stub provider's device ({@link StubProvider}), connected to itself, with one CQ for both queues
 * and two registered buffers: what the data-path allocation test and the binding-cost benchmark post on. Made through
 * the public API only, as an application makes it on a real device, in one of three {@link Path}s: the QP and CQ
 * types and the calls that post and poll on them.
 */
public final class StubLoopback implements AutoCloseable {
    /** Offsets in {@link #local}: where sends come from and READs and atomics land; the atomics' 8-byte slot. */
    public static final long DATA = 0;

    public static final long ATOMIC_RESULT = 64;
    /** Bytes per SEND / WRITE / READ. */
    public static final int LENGTH = 8;

    public final Context context;
    public final ProtectionDomain pd;
    public final MemoryRegion local;
    public final MemoryRegion remote;
    public final CompletionQueue cq;
    public final QueuePair qp;
    public final Path path;
    /** Unregistered native bytes for inline sends. */
    public final MemorySegment inlineData;
    /** Two elements of {@link #local}, for gathering sends. */
    public final ScatterGatherList sgl;

    private final Arena arena;

    /** How the loopback's QP posts and its CQ is polled. */
    public enum Path {
        /** A plain QP and CQ: ibv_post_send, ibv_poll_cq. */
        LEGACY,
        /**
         * An extended QP and CQ ({@code ibv_qp_ex}, {@code ibv_cq_ex}) as the library uses them: FLUSH and ATOMIC
         * WRITE with ibv_wr_*, everything else with ibv_post_send; polled with ibv_poll_cq (the stub serves it).
         */
        EXTENDED,
        /** An extended QP and CQ with every opcode posted with ibv_wr_* and polled with ibv_start_poll (before issue 26). */
        WORK_REQUESTS
    }

    private StubLoopback(
            Context context,
            ProtectionDomain pd,
            MemoryRegion local,
            MemoryRegion remote,
            CompletionQueue cq,
            QueuePair qp,
            Arena arena,
            Path path) {
        this.context = context;
        this.pd = pd;
        this.local = local;
        this.remote = remote;
        this.cq = cq;
        this.qp = qp;
        this.arena = arena;
        this.path = path;
        this.inlineData = arena.allocate(LENGTH, 8);
        this.sgl = new ScatterGatherList(2).add(local, DATA, LENGTH).add(local, DATA + LENGTH, LENGTH);
    }

    /**
     * Loads the stub provider (see {@link StubProvider#load()}: before anything else uses the verbs API in this JVM)
     * and makes the loopback QP.
     */
    public static StubLoopback open(boolean extended, int queueDepth)
            throws StubProvider.UnavailableException, IOException, InterruptedException, RdmaException {
        return open(extended ? Path.EXTENDED : Path.LEGACY, queueDepth);
    }

    /** {@link #open(boolean, int)} on the given path. */
    public static StubLoopback open(Path path, int queueDepth)
            throws StubProvider.UnavailableException, IOException, InterruptedException, RdmaException {
        boolean extended = path != Path.LEGACY;
        StubProvider.load();
        Context context = Context.open(StubProvider.DEVICE);
        try {
            ProtectionDomain pd = context.allocateProtectionDomain();
            MemoryRegion local = pd.allocate(4096, TestAccess.ALL_REMOTE);
            MemoryRegion remote = pd.allocate(4096, TestAccess.ALL_REMOTE);
            CompletionQueue cq = context.createCompletionQueue(queueDepth, null, extended);
            if (path == Path.WORK_REQUESTS) {
                cq.pollWithExtendedApiForTest();
            }
            PreparedQueuePair prepared = pd.queuePair()
                    .completionQueue(cq)
                    .sendQueueDepth(queueDepth)
                    .maxSendSge(2)
                    .maxInlineData(64)
                    .legacySendPath(!extended)
                    .workRequestsForEveryOpcode(path == Path.WORK_REQUESTS)
                    .prepare();
            QueuePair qp = prepared.connect(prepared.endpoint());
            if (qp.usesExtendedSendPath() != extended
                    || cq.isExtended() != extended
                    || cq.pollsWithExtendedApi() != (path == Path.WORK_REQUESTS)) {
                throw new IllegalStateException("the stub gave " + qp + " and " + cq + " other paths than asked");
            }
            return new StubLoopback(context, pd, local, remote, cq, qp, Arena.ofShared(), path);
        } catch (RdmaException | RuntimeException e) {
            context.close();
            throw e;
        }
    }

    @Override
    public void close() {
        sgl.close();
        context.close();
        arena.close();
    }
}
