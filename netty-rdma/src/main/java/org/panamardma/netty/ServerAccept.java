package org.panamardma.netty;

import java.nio.charset.StandardCharsets;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.cm.CmEvent;
import org.panamardma.verbs.cm.CmId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of an {@link RdmaChannel}: the connection request {@link RdmaServerChannel} handed it, answered
 * once (rdma_cm allows one answer) on the channel's loop: accepted once its resources are made, or rejected with this
 * transport's reason so that the client fails at once instead of waiting out its connect timeout. Event loop only.
 */
final class ServerAccept {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaChannel.class);
    /** The reject's private data when the server could not set a connection up. */
    static final byte[] SETUP_FAILED = "netty-rdma: setup failed".getBytes(StandardCharsets.US_ASCII);

    private final RdmaChannel ch;
    private final CmEvent request;
    /** The request was accepted or rejected. */
    private boolean answered;

    ServerAccept(RdmaChannel ch, CmEvent request) {
        this.ch = ch;
        this.request = request;
    }

    /** On the channel's loop once registered: resources, then accept; ESTABLISHED follows. */
    void accept() throws RdmaException {
        ch.peer = ConnectPrivateData.decode(request.privateData());
        ch.state = RdmaChannel.State.CONNECTING;
        ch.setUp.makeResources();
        // the client may SEND as soon as it sees ESTABLISHED, before this side's event: receive from now on
        ch.setUp.startStream();
        ch.id.accept(ch.setUp.parameters());
        answered = true;
        int millis = ch.setUp.timeoutMillis();
        ch.setUp.deadline(() -> {
            if (ch.state == RdmaChannel.State.CONNECTING) {
                LOG.debug("{}: no ESTABLISHED within {} ms of accepting", ch, millis);
                ch.unsafe().close(ch.unsafe().voidPromise());
            }
        });
    }

    /**
     * The connection could not be set up (its registration on a worker loop, its resources, the accept): the client
     * is told at once with a reject (private data {@link #SETUP_FAILED}) instead of waiting out its connect timeout,
     * as destroying the id alone leaves it to. Once only, and never after the accept went out.
     */
    void refuse(Throwable cause) {
        CmId id = ch.id;
        if (answered || id == null) {
            return;
        }
        answered = true;
        LOG.warn("{}: refusing a connection request: {}", ch, cause.toString());
        try {
            id.reject(SETUP_FAILED);
        } catch (RdmaException | RuntimeException e) {
            LOG.debug("{}: reject", ch, e);
        }
    }

    void onCmEvent(CmEvent e) {
        switch (e.type()) {
            case ESTABLISHED -> {
                if (ch.state != RdmaChannel.State.CONNECTING) {
                    return;
                }
                ch.setUp.connected();
            }
            case DISCONNECTED, DEVICE_REMOVAL, TIMEWAIT_EXIT, CONNECT_ERROR, UNREACHABLE, REJECTED ->
                ch.end.peerGone(e);
            default -> LOG.debug("{}: rdma_cm event {}", ch, e);
        }
    }

    /** The server's reason, when the reject's private data is this transport's (IB carries it; iWARP may not). */
    static String rejectReason(byte[] privateData) {
        String text = privateData == null ? "" : new String(privateData, StandardCharsets.US_ASCII);
        if (text.startsWith(new String(SETUP_FAILED, StandardCharsets.US_ASCII))) {
            return "the server could not set the connection up";
        }
        if (text.startsWith(new String(RdmaServerChannel.BUSY, StandardCharsets.US_ASCII))) {
            return "busy: its connection limit or backlog";
        }
        return "no listener, or its connection limit";
    }
}
