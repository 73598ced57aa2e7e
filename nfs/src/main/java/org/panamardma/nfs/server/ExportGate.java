package org.panamardma.nfs.server;

import java.net.InetSocketAddress;
import java.util.Objects;
import java.util.Optional;
import org.panamardma.oncrpc.AuthStat;
import org.panamardma.oncrpc.RejectedReply;
import org.panamardma.oncrpc.RpcMessageCodec;
import org.panamardma.oncrpc.RpcService;
import org.panamardma.xdr.XdrEncoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The export's client list in front of a program (NFS or MOUNT) on one transport: a call from an address the list
 * does not hold is refused before the program sees it, except the NULL procedure (a ping that touches nothing), as
 * knfsd's {@code svcauth_unix_set_client} does: MSG_DENIED, AUTH_ERROR, AUTH_BADCRED; and except the procedures the
 * program answers itself for such a client (MOUNT's MNT: MNT3ERR_ACCES, as rpc.mountd). A call that passes runs with
 * its {@link Client} (the address, the source port, the client's {@link ExportOptions}) bound for the program.
 * Refusals are logged at WARN at a bounded rate.
 */
final class ExportGate implements RpcService {
    private static final Logger LOG = LoggerFactory.getLogger(ExportGate.class);
    private static final ScopedValue<Client> CURRENT = ScopedValue.newInstance();

    /**
     * A client as a call shows it.
     *
     * @param address its address and source port, if the transport knows them
     * @param listed whether the export's client list holds the address
     * @param options how the export is served to it (the defaults when not listed)
     * @param portsProve whether a source port below 1024 proves the client's root (TCP; not RDMA)
     */
    record Client(Optional<InetSocketAddress> address, boolean listed, ExportOptions options, boolean portsProve) {
        /**
         * Whether the {@code secure} option lets this client in: it is {@code insecure}, or the transport's ports
         * prove nothing, or the call came from a reserved port.
         */
        boolean portAllowed() {
            return !options.secure()
                    || !portsProve
                    || address.map(a -> a.getPort() < 1024).orElse(false);
        }

        String describe() {
            return address.map(a -> a.getAddress().getHostAddress() + ":" + a.getPort())
                    .orElse("an unknown address");
        }
    }

    private final RpcService program;
    private final java.util.Set<Integer> answeredByProgram;
    private final ExportClients clients;
    private final boolean portsProve;
    private final String what;
    private final RateLimitedLog refusals;

    /**
     * @param program the program (its dispatcher)
     * @param answeredByProgram procedures the program answers itself for a client not listed (besides NULL)
     * @param clients who may use it
     * @param portsProve whether the transport's source ports mean anything (TCP)
     * @param what names the program and transport in log lines
     * @param refusals where refusals are logged (shared by the gates of a server)
     */
    ExportGate(
            RpcService program,
            java.util.Set<Integer> answeredByProgram,
            ExportClients clients,
            boolean portsProve,
            String what,
            RateLimitedLog refusals) {
        this.program = Objects.requireNonNull(program, "program");
        this.answeredByProgram = java.util.Set.copyOf(answeredByProgram);
        this.clients = Objects.requireNonNull(clients, "clients");
        this.portsProve = portsProve;
        this.what = what;
        this.refusals = refusals;
    }

    /** A log shared by a server's gates: 20 refusal lines a minute at most. */
    static RateLimitedLog refusalLog() {
        return new RateLimitedLog(LOG, 20);
    }

    /** The client of the call running on this thread; empty outside a gate. */
    static Optional<Client> current() {
        return CURRENT.isBound() ? Optional.of(CURRENT.get()) : Optional.empty();
    }

    @Override
    public void serve(Incoming call, XdrEncoder out) {
        Optional<ExportOptions> options = call.remote().flatMap(a -> clients.optionsFor(a.getAddress()));
        int procedure = call.header().procedure();
        if (options.isEmpty() && procedure != 0 && !answeredByProgram.contains(procedure)) {
            refusals.warn(() -> what + ": refused a call from "
                    + call.remote().map(a -> a.getAddress().getHostAddress()).orElse("an unknown address")
                    + ": not in the export's client list (--allow)");
            RpcMessageCodec.encode(RejectedReply.authError(call.header().xid(), AuthStat.AUTH_BADCRED), out);
            return;
        }
        Client client = new Client(call.remote(), options.isPresent(), options.orElse(clients.defaults()), portsProve);
        ScopedValue.where(CURRENT, client).run(() -> program.serve(call, out));
    }
}
