package org.panamardma.verbs.cm;

import org.panamardma.verbs.Context;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.TransportType;

/**
 * Soft-iWARP's lost first bytes, and the probe the active side of a connection runs against them.
 *
 * <p>Soft-iWARP (the kernel's siw driver, drivers/infiniband/sw/siw/siw_cm.c) moves a new connection's TCP socket
 * from its connection manager to the queue pair by swapping the socket's data-ready callback, and it does so on
 * each side at a moment when the peer may already be sending:
 * <ul>
 *   <li>the passive side sends its MPA reply first and installs the queue pair's callback only after that
 *       ({@code siw_accept}: {@code siw_send_mpareqrep}, then {@code siw_qp_socket_assoc}). Bytes of the active
 *       side's first request that arrive in between wake the connection manager's callback, which ignores them
 *       in RDMA mode: they stay unread in the socket until the next bytes from the active side arrive. A
 *       request-response protocol whose client speaks first then waits for ever: the client's first RDMA WRITE
 *       or READ completes (a WRITE on siw completes once handed to TCP) or stays outstanding, and the server never
 *       sees it. Seen in CI in rdma-tool perf (write_lat: the server's byte never changed; read_lat: the READ
 *       never completed), and reproduced here about once in 60 connections under emulation;</li>
 *   <li>the active side reads the MPA reply with room for 4 bytes more, and fails the connect with
 *       RDMA_CM_EVENT_CONNECT_ERROR (status -EINVAL) if the passive side's first message came in the same read
 *       ({@code siw_recv_mpa_rr}: "peer sent extra data"); a message arriving just after that read but before
 *       the active side installed its own callback stays unread, as above.</li>
 * </ul>
 * A connect that fails is tried again ({@link org.panamardma.verbs.connection.RdmaClient}); bytes left unread
 * are what this probe is for. Right after ESTABLISHED the active side RDMA READs zero bytes from the peer (siw answers a
 * zero-length READ without looking its key up, siw_qp_tx.c {@code siw_check_sgl_tx}: it is what MPA's
 * peer-to-peer mode sends as its ready-to-receive message) and waits for the answer. A READ not answered within {@link #FIRST_WAIT_NANOS} is followed by
 * another, with waits doubling: its bytes wake the peer's queue-pair callback, which then reads the stream from
 * the first unread byte, the stuck request included. The answer travels back the same way, so once any probe
 * completes both directions are read by the queue pairs and nothing sent before it is left behind.
 *
 * <p>The passive side's half is handled where connections are accepted: {@code RdmaServer} looks, once a connection
 * is ESTABLISHED, whether the kernel's socket of the connection holds bytes siw left unread, and only then sends the
 * client such a zero-length READ (its class {@code ServerStreamStart} says why only then), so that a client that
 * speaks first and waits (any RPC client) is answered whatever it does itself.
 *
 * <p>A zero-length READ must reach a peer whose queue pair is not sending. siw answers a READ that arrives while its
 * queue pair sends from its inbound READ queue, and for a zero-length READ it leaves the response's one SGE as the
 * request sent before left it (siw_qp_tx.c, {@code siw_activate_tx}: {@code num_sge = 0}, {@code sge[0]} untouched;
 * {@code siw_qp_sq_proc_tx} sets {@code num_sge = 1} for every READ response): the answer carries the length and
 * bytes of the peer's last SEND, the reader terminates the connection ({@code siw: rresp len: N != 0}) and the probe
 * completes with {@code IBV_WC_GENERAL_ERR}. RPC-over-RDMA keeps the client's probe safe: a server sends nothing
 * before a call, and the client sends none before its probe is answered. The server's probe ({@code
 * ServerStreamStart}) is sent only when the client's bytes have stayed unread, unchanged, for a while: a client that
 * sends on wakes its stuck bytes itself, and one whose first message is stuck waits for its reply, sending nothing.
 * A protocol whose server
 * speaks first must probe with a READ of a few bytes the peer exposes instead, as netty-rdma does (its private data
 * names a stream start word).
 *
 * <p>The probe needs READ resources both ways ({@link #possible}): the kernel's NFS server accepts with none
 * (net/sunrpc/xprtrdma/svc_rdma_transport.c, {@code responder_resources = 0}) and is not probed; a READ it was
 * not granted would end the connection.
 */
public final class StreamStartProbe {
    /** The vendor id Soft-iWARP reports ({@code SIW_VENDOR_ID}, "bmt" in ASCII). */
    public static final int SIW_VENDOR_ID = 0x626d74;
    /** How long the first probe may go unanswered before the next one is sent. */
    public static final long FIRST_WAIT_NANOS = 20_000_000L;
    /** The longest wait between two probes. */
    public static final long LONGEST_WAIT_NANOS = 640_000_000L;
    /** At most this many probes per connection (after the last, the wait goes on to the connect's timeout). */
    public static final int MAX_PROBES = 8;

    private StreamStartProbe() {}

    /**
     * Whether connections on {@code context}'s device need the probe: Soft-iWARP devices.
     *
     * @param context the device context of the connection
     * @return whether it is a Soft-iWARP device
     * @throws RdmaException if querying the device fails ({@code ibv_query_device_ex}'s errno)
     */
    public static boolean needed(Context context) throws RdmaException {
        return context.transportType() == TransportType.IWARP
                && context.attributes().vendorId() == SIW_VENDOR_ID;
    }

    /**
     * Whether the connection of {@code established} may READ from its peer: the resources rdma_cm reports as
     * negotiated in the ESTABLISHED event are non-zero both ways (on iWARP rdma_cm reports this side's IRD and ORD
     * there, the ORD limited by the peer's IRD).
     *
     * @param established the connection's ESTABLISHED event
     * @return whether both negotiated READ resources are at least 1
     */
    public static boolean possible(CmEvent established) {
        ConnectionParameters p = established.parameters();
        return Math.min(p.initiatorDepth(), p.responderResources()) >= 1;
    }

    /**
     * The wait after the probe that waited {@code previousNanos}: twice as long, at most {@link #LONGEST_WAIT_NANOS}.
     *
     * @param previousNanos the wait after the previous probe, in nanoseconds
     * @return the next wait in nanoseconds
     */
    public static long nextWaitNanos(long previousNanos) {
        return Math.min(previousNanos * 2, LONGEST_WAIT_NANOS);
    }
}
