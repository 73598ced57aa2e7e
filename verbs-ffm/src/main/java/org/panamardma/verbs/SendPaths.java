package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.panamardma.verbs.CallGate.unscoped;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.ibv_mw_bind_info;
import org.panamardma.verbs.ffi.ibv_send_wr;
import org.panamardma.verbs.ffi.ibv_sge;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * The send backends of a queue pair, chosen once when it is made, and what they can post: {@link SendPosting}
 * validates and posts through them. A QP made with the extended API ({@code ibv_qp_ex}) has an
 * {@link ExtendedSendPath} (FLUSH, ATOMIC WRITE, and every opcode where tests ask for it), and as the provider granted
 * at creation its atomics and windows; every QP has the {@link LegacySendPath} ({@code ibv_post_send}), which takes
 * every other request, and gathers where the provider builds them wrong through {@code ibv_wr_*}.
 *
 * @param extendedPath ibv_wr_* on an extended QP (FLUSH, ATOMIC WRITE), else null
 * @param sendPath how SEND, WRITE, READ and the atomics reach the provider
 * @param listPath the ibv_post_send path for lists of more than one element where {@code sendPath} is the ibv_wr_*
 *     one on a provider that builds them wrong (RdmaCore.Quirk.RXE_WR_SET_SGE_LIST_LENGTH); else null
 * @param atomics whether compare-and-swap and fetch-and-add can post
 * @param flush whether FLUSH can post
 * @param atomicWrite whether ATOMIC WRITE can post
 * @param memoryWindows whether binds and local invalidates can post
 */
record SendPaths(
        ExtendedSendPath extendedPath,
        SendPath sendPath,
        SendPath listPath,
        boolean atomics,
        boolean flush,
        boolean atomicWrite,
        boolean memoryWindows) {

    /**
     * Builds the paths of the QP {@code qp} that {@code c} describes, their request scratch from the QP's
     * {@code scratch}; inline data goes through {@code inlineBuf}.
     */
    static SendPaths build(
            Context ctx,
            MemorySegment qp,
            String description,
            QueuePairCreation c,
            MemorySegment inlineBuf,
            Arena scratch) {
        DeviceAttributes attrs = ctx.attributes();
        ProviderTraits traits = ctx.providerTraits;
        long sgeArray = ibv_sge.layout().byteSize() * Math.max(1, c.maxSendSge());
        LegacySendPath postSend = new LegacySendPath(
                ctx.postSendFn,
                qp,
                description,
                c.maxSendWr(),
                inlineBuf,
                unscoped(scratch.allocate(ibv_send_wr.layout())),
                unscoped(scratch.allocate(sgeArray, 8)),
                unscoped(scratch.allocate(ADDRESS)),
                unscoped(scratch.allocate(ibv_send_wr.layout(), SendChain.MAX_REQUESTS)),
                unscoped(scratch.allocate(ibv_sge.layout(), SendChain.MAX_REQUESTS)),
                traits.postSendCritical());
        if (c.extended()) {
            // the provider's ibv_qp_ex as the installed rdma-core has it: 352 bytes in 44 (no wr_flush), 360 from 45
            ExtendedSendPath extendedPath = new ExtendedSendPath(
                    RdmaCore.qpExView(verbs_h.ibv_qp_to_qp_ex(qp)),
                    c.sendOpsFlags(),
                    attrs.supportsAtomics(),
                    description,
                    c.maxSendWr(),
                    inlineBuf,
                    unscoped(scratch.allocate(JAVA_LONG)),
                    unscoped(scratch.allocate(sgeArray, 8)),
                    unscoped(scratch.allocate(ibv_mw_bind_info.layout())),
                    traits.postSendCritical());
            // binds and local invalidates take the same path as every other request: ibv_post_send carries
            // IBV_WR_BIND_MW and IBV_WR_LOCAL_INV on a QP made by ibv_create_qp_ex as well (rxe's post_send and
            // the wr_* functions fill one send queue; rdma-core providers/rxe/rxe.c validate_send_wr, convert_send_wr)
            SendPath sendPath = c.workRequestsForEveryOpcode() ? extendedPath : postSend;
            // gathers avoid rxe's ibv_wr_set_sge_list where ibv_wr_* posts them: the one ibv_post_send path takes
            // them (its remembered fields stay its own; the gate serializes both paths' posts)
            SendPath listPath = sendPath == extendedPath && RdmaCore.Quirk.RXE_WR_SET_SGE_LIST_LENGTH.affects(ctx)
                    ? postSend
                    : null;
            // the provider was asked for the atomics' and windows' IBV_QP_EX_WITH_* flags at creation: as granted there
            return new SendPaths(
                    extendedPath,
                    sendPath,
                    listPath,
                    extendedPath.atomics(),
                    extendedPath.flush(),
                    extendedPath.atomicWrite(),
                    attrs.supportsMemoryWindows() && extendedPath.memoryWindows());
        }
        // IBV_WR_BIND_MW and IBV_WR_LOCAL_INV through ibv_post_send: where the device has windows at all (siw, the
        // one device without the extended API here, has none and refuses both opcodes)
        return new SendPaths(
                null, postSend, null, attrs.supportsAtomics(), false, false, attrs.supportsMemoryWindows());
    }
}
