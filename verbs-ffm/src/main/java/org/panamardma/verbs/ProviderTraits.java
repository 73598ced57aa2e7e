package org.panamardma.verbs;

/**
 * What the library knows of a provider's data-path entry points, read from rdma-core's sources, decided once per
 * opened device from its {@code vendor_id} (ibv_query_device): which calls may enter the kernel, and whether the
 * provider polls an extended CQ with {@code ibv_poll_cq}.
 *
 * <p><b>Critical downcalls.</b> A downcall made with {@link java.lang.foreign.Linker.Option#critical} skips the
 * thread's transition out of Java (about 1 ns less per call) but keeps it in Java while in C: no safepoint, hence no
 * garbage collection in any thread, can complete until the call returns. That is harmless for a call of a few
 * hundred nanoseconds in user space and wrong for one that makes a system call, which may sleep. So a data-path call
 * is critical only where the provider's code for it stays in user space:
 * <ul>
 *   <li>rxe rings its doorbell with {@code write(cmd_fd)} in every {@code post_send} and {@code wr_complete}
 *       (providers/rxe/rxe.c, {@code post_send_db}); its {@code post_recv} and {@code poll_cq} only touch the
 *       queues it shares with the kernel. Its {@code req_notify_cq} is {@code ibv_cmd_req_notify_cq}, a system call.</li>
 *   <li>siw rings its doorbell with {@code write(cmd_fd)} in {@code post_send} when the send queue was idle
 *       (providers/siw/siw.h, {@code siw_db}); {@code post_recv}, {@code poll_cq} and {@code notify_cq} stay in
 *       user space.</li>
 *   <li>mlx4/mlx5 write their doorbells to mapped device memory: nothing on the data path enters the kernel.</li>
 *   <li>the stub provider of the benchmarks enters the kernel nowhere.</li>
 *   <li>any other provider: nothing is assumed, no data-path call is critical.</li>
 * </ul>
 * The builders and setters of {@code ibv_wr_*} (between {@code ibv_wr_start} and {@code ibv_wr_complete}) and the
 * extended poll's {@code ibv_start_poll}, {@code ibv_next_poll}, {@code ibv_wc_read_*} and {@code ibv_end_poll} are
 * critical everywhere: the API exists so that they only fill or read queue entries in user memory (ibv_wr_post(3):
 * "designed to minimize CPU branching and locking during the posting process"), the doorbell being
 * {@code wr_complete}'s, which follows {@link #postSendCritical}. {@code req_notify_cq} is never critical: it is
 * called once per sleep, and rxe's enters the kernel. {@code -Dpanama.rdma.criticalDowncalls=false} makes
 * {@code post_send}, {@code wr_complete}, {@code post_recv} and {@code poll_cq} non-critical on every provider (to
 * measure what the choice saves: benchmarks/README.md, "The binding's own cost on the host CPU").
 *
 * <p><b>ibv_poll_cq on an extended CQ.</b> Reading a completion field by field through {@code ibv_cq_ex} takes
 * seven or eight calls where {@code ibv_poll_cq} takes one for a whole batch. The standard fields are all the
 * library reads, and where the provider's {@code poll_cq} serves the CQs {@code create_cq_ex} made as well (rxe:
 * {@code rxe_poll_cq} reads the same queue, which holds whole {@code ibv_wc}s; mlx5: {@code poll_cq} parses the same
 * CQEs; the stub), an extended CQ is polled with it. Elsewhere the extended poll is kept: libibverbs does not promise
 * it (ibv_create_cq_ex(3) documents only {@code ibv_start_poll} for such CQs).
 *
 * <p><b>Unsignaled payloads sent in place.</b> siw transmits the payload of a request posted without
 * {@code IBV_SEND_SIGNALED}, a page or more of it, straight from the request's memory: the pages go to TCP without a
 * copy (linux drivers/infiniband/sw/siw/siw_qp_tx.c, {@code siw_qp_prepare_tx}: zero copy when {@code zcopy_tx}, at
 * least {@code SENDPAGE_THRESH} bytes and not signaled; "In iWarp, work completion is only local delivery to TCP. TCP
 * may reuse the buffer for retransmission"), and TCP reads them until it has sent them and the peer acknowledged
 * them, after the completion of a later signaled request on the same queue. Memory reused at that completion, as
 * verbs allow (a completion tells that every request posted before it is done), then reaches the peer in place of
 * what was posted. A signaled request's payload is copied into the socket before it completes, so on such a provider
 * the connection layer signals every request whose payload reaches a page ({@link #IN_PLACE_THRESHOLD}).
 */
record ProviderTraits(
        String name,
        boolean postSendCritical,
        boolean postRecvCritical,
        boolean pollCritical,
        boolean pollsExtendedCqWithPollCq,
        boolean unsignaledPayloadsSentInPlace) {

    /** The smallest payload siw sends in place: {@code SENDPAGE_THRESH}, a page (4 KiB, the smallest page size). */
    static final long IN_PLACE_THRESHOLD = 4096;

    /** rxe's vendor_id (Linux drivers/infiniband/sw/rxe/rxe_param.h, RXE_VENDOR_ID). */
    static final int RXE_VENDOR_ID = 0xFFFFFF;
    /** siw's vendor_id (Linux drivers/infiniband/sw/siw/siw.h, SIW_VENDOR_ID: "bmt"). */
    static final int SIW_VENDOR_ID = 0x626D74;
    /** Mellanox's IEEE OUI, the vendor_id of mlx4 and mlx5 devices. */
    static final int MELLANOX_VENDOR_ID = 0x02C9;
    /** The stub provider's (native-headers/stub): no real vendor's. */
    static final int STUB_VENDOR_ID = 0x5354;

    /** The system property that, set to false, makes no data-path call critical. */
    static final String CRITICAL_PROPERTY = "panama.rdma.criticalDowncalls";

    private static final boolean CRITICAL_ALLOWED =
            !"false".equalsIgnoreCase(System.getProperty(CRITICAL_PROPERTY, "true"));

    static ProviderTraits of(int vendorId) {
        ProviderTraits t = switch (vendorId) {
            case RXE_VENDOR_ID -> new ProviderTraits("rxe", false, true, true, true, false);
            case SIW_VENDOR_ID -> new ProviderTraits("siw", false, true, true, false, true);
            case MELLANOX_VENDOR_ID -> new ProviderTraits("mlx", true, true, true, true, false);
            case STUB_VENDOR_ID -> new ProviderTraits("stub", true, true, true, true, false);
            default ->
                new ProviderTraits("vendor 0x" + Integer.toHexString(vendorId), false, false, false, false, false);
        };
        return CRITICAL_ALLOWED
                ? t
                : new ProviderTraits(
                        t.name, false, false, false, t.pollsExtendedCqWithPollCq, t.unsignaledPayloadsSentInPlace);
    }
}
