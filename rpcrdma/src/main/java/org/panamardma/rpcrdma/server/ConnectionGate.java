package org.panamardma.rpcrdma.server;

import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;
import org.panamardma.oncrpc.limits.ConnectionAdmission;
import org.panamardma.oncrpc.limits.RateLimitedLog;
import org.panamardma.verbs.cm.ConnectionParameters;
import org.panamardma.verbs.connection.RdmaServer;

/**
 * Which RPC-over-RDMA clients an {@link RpcRdmaServer} takes, decided on the listener's event thread before
 * anything is allocated for a request:
 * <ul>
 *   <li>a client that offers no RDMA Read resources (responder resources 0, seen here as an initiator depth of 0) is
 *       refused, as Linux's svcrdma refuses it ({@code svc_rdma_accept}, trace event {@code svcrdma_initdepth_err}):
 *       the server could not pull its Read chunks, and an RDMA Read posted to it would wait for ever (rxe holds it
 *       for want of a read credit) with the call's memory pinned;
 *   <li>then the caps in all and per client address ({@link ConnectionAdmission}), so that one host cannot take every
 *       connection and lock the others out.
 * </ul>
 * Refusals are counted (here and by the admission) and logged at most once per 10 s ({@link RateLimitedLog}).
 */
final class ConnectionGate implements RdmaServer.Admission {
    private final ConnectionAdmission admission;
    private final RateLimitedLog log;
    private final String server;
    private final LongAdder noReadResources = new LongAdder();

    ConnectionGate(ConnectionAdmission admission, RateLimitedLog log, String server) {
        this.admission = admission;
        this.log = log;
        this.server = server;
    }

    @Override
    public Optional<Runnable> admit(Optional<InetSocketAddress> peer, ConnectionParameters requested) {
        String who = peer.map(Object::toString).orElse("?");
        if (requested.initiatorDepth() == 0) {
            noReadResources.increment();
            log.warn(() -> server + ": refusing " + who + ": it offers no RDMA Read resources (responder resources"
                    + " 0), so its Read chunks could never be pulled; " + noReadResources.sum() + " such so far");
            return Optional.empty();
        }
        ConnectionAdmission.Decision decision =
                admission.admit(peer.map(InetSocketAddress::getAddress).orElse(null));
        if (decision instanceof ConnectionAdmission.Refused refused) {
            log.warn(() -> server + ": refusing " + who + ": "
                    + (refused.reason() == ConnectionAdmission.Refusal.SERVER_FULL
                            ? "the server has"
                            : "its address has")
                    + " its most connections (" + refused.limit() + "); " + admission.refused() + " refused so far");
            return Optional.empty();
        }
        return Optional.of(((ConnectionAdmission.Ticket) decision)::close);
    }

    /** {@return the caps' counts: open, admitted, refused by reason} */
    ConnectionAdmission admission() {
        return admission;
    }

    /** {@return requests refused because the client offered no RDMA Read resources} */
    long refusedForNoReadResources() {
        return noReadResources.sum();
    }
}
