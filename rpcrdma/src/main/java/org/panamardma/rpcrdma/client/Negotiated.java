package org.panamardma.rpcrdma.client;

import org.panamardma.rpcrdma.ConnectPrivateData;

/**
 * What the connection settled on (RFC 8797 section 7.2).
 *
 * @param ours the private data we sent
 * @param peers the server's, or {@link ConnectPrivateData#DEFAULTS} if it sent none ({@code present()} false)
 * @param sendThreshold the largest inline call we send: min(our send size, the server's receive size)
 * @param receiveThreshold the largest inline reply we plan for: min(our receive size, the server's send size)
 * @param creditGrant the server's current credit grant (1 until the first reply)
 */
public record Negotiated(
        ConnectPrivateData ours, ConnectPrivateData peers, int sendThreshold, int receiveThreshold, int creditGrant) {}
