package org.panamardma.verbs.cm;

import java.util.HexFormat;
import org.panamardma.verbs.Errno;

/**
 * One rdma_cm event, copied out of librdmacm's {@code struct rdma_cm_event} (which is acked at once, so nothing here
 * points into native memory).
 *
 * @param type       what happened
 * @param status     the event's status as the kernel reports it: 0, or a negative errno (ADDR_ERROR, ROUTE_ERROR,
 *                   UNREACHABLE, CONNECT_ERROR; REJECTED on iWARP, e.g. -ECONNREFUSED), except that REJECTED on
 *                   InfiniBand/RoCE carries the positive IB CM reject reason (28: the peer's application rejected,
 *                   8: nobody listens on that port) — see {@link #statusDescription()}
 * @param id         the id the event is for; for CONNECT_REQUEST the new id librdmacm made for the connection
 * @param listenId   for CONNECT_REQUEST, the listening id; else null
 * @param parameters the peer's connection parameters with its private data (CONNECT_REQUEST, ESTABLISHED,
 *                   REJECTED...); private data of other events too; never null
 * @param peerQpNumber the peer's QP number where the event tells it (CONNECT_REQUEST, ESTABLISHED), else 0
 */
public record CmEvent(
        CmEventType type, int status, CmId id, CmId listenId, ConnectionParameters parameters, int peerQpNumber) {
    /** IB CM reject reasons ({@code enum ib_cm_rej_reason}, Linux include/rdma/ib_cm.h), index = reason. */
    private static final String[] IB_REJECT_REASONS = {
        null,
        "NO_QP",
        "NO_EEC",
        "NO_RESOURCES",
        "TIMEOUT",
        "UNSUPPORTED",
        "INVALID_COMM_ID",
        "INVALID_COMM_INSTANCE",
        "INVALID_SERVICE_ID",
        "INVALID_TRANSPORT_TYPE",
        "STALE_CONN",
        "RDC_NOT_EXIST",
        "INVALID_GID",
        "INVALID_LID",
        "INVALID_SL",
        "INVALID_TRAFFIC_CLASS",
        "INVALID_HOP_LIMIT",
        "INVALID_PACKET_RATE",
        "INVALID_ALT_GID",
        "INVALID_ALT_LID",
        "INVALID_ALT_SL",
        "INVALID_ALT_TRAFFIC_CLASS",
        "INVALID_ALT_HOP_LIMIT",
        "INVALID_ALT_PACKET_RATE",
        "PORT_CM_REDIRECT",
        "PORT_REDIRECT",
        "INVALID_MTU",
        "INSUFFICIENT_RESP_RESOURCES",
        "CONSUMER_DEFINED",
        "INVALID_RNR_RETRY",
        "DUPLICATE_LOCAL_COMM_ID",
        "INVALID_CLASS_VERSION",
        "INVALID_FLOW_LABEL",
        "INVALID_ALT_FLOW_LABEL",
        "34",
        "VENDOR_OPTION_NOT_SUPPORTED",
    };

    /** The IB CM reject reason of a REJECTED event for "the peer's application rejected" (IB_CM_REJ_CONSUMER_DEFINED). */
    public static final int IB_REJECT_CONSUMER_DEFINED = 28;
    /** The IB CM reject reason of a REJECTED event for "nobody listens there" (IB_CM_REJ_INVALID_SERVICE_ID). */
    public static final int IB_REJECT_INVALID_SERVICE_ID = 8;

    /**
     * {@return a copy of the private data the event carried (on InfiniBand/RoCE padded with zeros to the field's size)}
     */
    public byte[] privateData() {
        return parameters.privateData();
    }

    /**
     * Whether the event is {@code expected} with status 0.
     *
     * @param expected the event type wanted
     * @return whether the event is {@code expected} with status 0
     */
    public boolean is(CmEventType expected) {
        return type == expected && status == 0;
    }

    /**
     * {@return the status in words: "0", an errno name for negative ones ("-ECONNREFUSED (111)"), and for a positive
     * REJECTED status the IB CM reject reason ("IB CM reject reason 28 CONSUMER_DEFINED")}
     */
    public String statusDescription() {
        if (status == 0) {
            return "0";
        }
        if (status < 0) {
            return "-" + Errno.name(-status) + " (" + status + ")";
        }
        if (type == CmEventType.REJECTED) {
            String name = status < IB_REJECT_REASONS.length ? IB_REJECT_REASONS[status] : null;
            return "IB CM reject reason " + status + (name == null ? "" : " " + name);
        }
        return Integer.toString(status);
    }

    @Override
    public String toString() {
        byte[] pd = parameters.privateDataUnsafe();
        int shown = pd.length;
        while (shown > 0 && pd[shown - 1] == 0) {
            shown--;
        }
        return type.cName() + " status " + statusDescription() + " on " + id
                + (listenId == null ? "" : " (listening " + listenId + ")")
                + (pd.length == 0
                        ? ""
                        : ", private data " + pd.length + " bytes"
                                + (shown == 0
                                        ? ""
                                        : " " + HexFormat.of().formatHex(pd, 0, Math.min(shown, 32))
                                                + (shown > 32 ? "..." : "")));
    }
}
