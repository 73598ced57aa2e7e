package org.panamardma.verbs;

/**
 * What a peer needs to connect to a prepared queue pair, exchanged out of band (rdma_cm does this for you).
 *
 * @param qpNumber the QP number
 * @param psn      the first packet sequence number it will send (24 bits)
 * @param port     its port
 * @param lid      its LID (0 on RoCE)
 * @param gid      its source GID (on RoCE: an IP address)
 * @param mtu      its port's active MTU
 */
public record QueuePairEndpoint(int qpNumber, int psn, int port, int lid, Gid gid, Mtu mtu) {
    /** An endpoint; refuses a PSN or QP number over 24 bits. */
    public QueuePairEndpoint {
        if ((psn & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("a PSN has 24 bits: 0x" + Integer.toHexString(psn));
        }
        if ((qpNumber & ~0xFFFFFF) != 0) {
            throw new IllegalArgumentException("a QP number has 24 bits: 0x" + Integer.toHexString(qpNumber));
        }
    }
}
