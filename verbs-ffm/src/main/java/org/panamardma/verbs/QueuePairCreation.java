package org.panamardma.verbs;

import java.lang.foreign.MemorySegment;

/**
 * What a {@link QueuePair}'s creation decided; its constructor only reads it.
 * {@code workRequestsForEveryOpcode}: on an extended QP, post every opcode with the ibv_wr_* verbs (the path before
 * issue 26), for tests and the benchmark.
 */
record QueuePairCreation(
        MemorySegment qp,
        boolean extended,
        long sendOpsFlags,
        int maxSendWr,
        int maxRecvWr,
        int maxSendSge,
        int maxRecvSge,
        int maxInlineData,
        boolean workRequestsForEveryOpcode) {
    QueuePairCreation(
            MemorySegment qp,
            boolean extended,
            long sendOpsFlags,
            int maxSendWr,
            int maxRecvWr,
            int maxSendSge,
            int maxRecvSge,
            int maxInlineData) {
        this(qp, extended, sendOpsFlags, maxSendWr, maxRecvWr, maxSendSge, maxRecvSge, maxInlineData, false);
    }

    /** What a queue pair keeps open: its protection domain, its CQs (one if both are the same) and its SRQ. */
    static NativeResource[] dependencies(
            ProtectionDomain pd, CompletionQueue s, CompletionQueue r, SharedReceiveQueue srq) {
        java.util.List<NativeResource> deps = new java.util.ArrayList<>(java.util.List.of(pd, s));
        if (r != s) {
            deps.add(r);
        }
        if (srq != null) {
            deps.add(srq);
        }
        return deps.toArray(NativeResource[]::new);
    }
}
