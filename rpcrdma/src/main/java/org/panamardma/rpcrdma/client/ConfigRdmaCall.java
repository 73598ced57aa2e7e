package org.panamardma.rpcrdma.client;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.rpcrdma.ConfigRdma;

/**
 * The typed client side of the Connection Configuration Protocol (draft-ietf-nfsv4-rpcrdma-08 section 6.2): one
 * CONF_RDMA call over an {@link RpcRdmaClient}, answered by the server with the connection's actual values.
 */
public final class ConfigRdmaCall {
    private ConfigRdmaCall() {}

    /**
     * Calls CONF_RDMA.
     *
     * @param client the connected client
     * @param request our values
     * @param timeout how long to wait for the reply
     * @return the server's reply; fails with {@link IllegalStateException} naming the status if the server does not
     *         answer SUCCESS (PROG_UNAVAIL from a server without the protocol, for instance)
     */
    public static CompletableFuture<ConfigRdma.Reply> call(
            RpcRdmaClient client, ConfigRdma.Request request, Duration timeout) {
        return client.call(
                        ConfigRdma.PROGRAM,
                        ConfigRdma.VERSION,
                        ConfigRdma.CONF_RDMA,
                        OpaqueAuth.NONE,
                        request::encodeTo,
                        ReplyExpectation.upTo(12),
                        timeout)
                .thenApply(reply -> {
                    if (!reply.isSuccess()) {
                        throw new IllegalStateException("CONF_RDMA answered " + reply.header());
                    }
                    return ConfigRdma.Reply.decode(reply.resultsDecoder());
                });
    }
}
