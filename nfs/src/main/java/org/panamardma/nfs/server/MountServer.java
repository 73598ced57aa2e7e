package org.panamardma.nfs.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.panamardma.nfs.Mount3;
import org.panamardma.nfs.MountStat3;
import org.panamardma.oncrpc.AuthFlavor;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.xdr.XdrEncodable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MOUNT protocol, version 3 (RFC 1813 appendix I), for one export: MNT answers the root handle and the
 * flavor AUTH_SYS, UMNT and UMNTALL forget a client's mounts, DUMP lists them, EXPORT names the export and its
 * client list. Each MNT and UMNT is logged at INFO.
 *
 * <p>MNT is where a client learns the root handle, so it is where rpc.mountd checks the client: an address not in
 * the export's client list, or a source port above 1023 under {@code secure}, is MNT3ERR_ACCES (mount(8) says
 * "access denied by server"), logged at WARN at a bounded rate. The other procedures but NULL are refused to an
 * address not listed before they get here ({@link ExportGate}).
 *
 * <p>The mount list (DUMP) is what clients said about themselves (MOUNT has nothing better: RFC 1813 appendix I,
 * section 5.2.2), so it is bounded: at most {@value #MAX_MOUNTS} entries, the oldest forgotten first.
 */
final class MountServer {
    private static final Logger LOG = LoggerFactory.getLogger(MountServer.class);
    /** The most entries the mount list keeps. */
    static final int MAX_MOUNTS = 1024;

    private final ExportFs fs;
    private final ExportClients clients;
    private final Squashing squashing;
    private final RateLimitedLog refusals;
    private final Runnable onUnmount;
    /** The mount list, oldest first; guarded by itself. */
    private final Map<Entry, Boolean> mounts = new LinkedHashMap<>();

    private record Entry(String host, String address, String path) {}

    /**
     * @param onUnmount run after each UMNT (the server logs its statistics then)
     */
    MountServer(ExportFs fs, ExportClients clients, Squashing squashing, RateLimitedLog refusals, Runnable onUnmount) {
        this.fs = fs;
        this.clients = clients;
        this.squashing = squashing;
        this.refusals = refusals;
        this.onUnmount = onUnmount;
    }

    /** Whether {@code path} names the export ("/srv/x" and "/srv/x/" alike). */
    private boolean isExport(String path) {
        String p = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        return p.equals(fs.path());
    }

    /** {@return the number of entries in the mount list} */
    int mountCount() {
        synchronized (mounts) {
            return mounts.size();
        }
    }

    private void remember(Entry e) {
        synchronized (mounts) {
            mounts.remove(e);
            mounts.put(e, Boolean.TRUE);
            while (mounts.size() > MAX_MOUNTS) {
                mounts.remove(mounts.keySet().iterator().next());
            }
        }
    }

    private static String address(Optional<ExportGate.Client> client) {
        return client.flatMap(ExportGate.Client::address)
                .map(a -> a.getAddress().getHostAddress())
                .orElse("");
    }

    void register(RpcDispatcher.Builder builder) {
        int prog = Mount3.PROGRAM;
        int vers = Mount3.VERSION;
        builder.register(prog, vers, Mount3.PROC_NULL, in -> Boolean.TRUE, (a, call) -> XdrEncodable.VOID);
        builder.register(
                prog,
                vers,
                Mount3.PROC_MNT,
                Mount3::decodeDirpath,
                (byte[] raw, org.panamardma.oncrpc.RpcCall call) -> {
                    String path = new String(raw, StandardCharsets.UTF_8);
                    Optional<ExportGate.Client> client = ExportGate.current();
                    String from = client.map(ExportGate.Client::describe).orElse("an unknown address");
                    if (client.isEmpty() || !client.get().listed()) {
                        refusals.warn(() -> "MOUNT: refused MNT " + path + " from " + from
                                + ": not in the export's client list (--allow)");
                        return Mount3.mountFailure(MountStat3.MNT3ERR_ACCES);
                    }
                    if (!client.get().portAllowed()) {
                        refusals.warn(() -> "MOUNT: refused MNT " + path + " from " + from
                                + ": not a reserved port, and the export is secure (insecure lifts it)");
                        return Mount3.mountFailure(MountStat3.MNT3ERR_ACCES);
                    }
                    ExportOptions options = client.get().options();
                    Caller caller = squashing.map(call, options);
                    if (!isExport(path)) {
                        LOG.info("MNT " + path + " by " + caller + " at " + from + ": not exported");
                        return Mount3.mountFailure(MountStat3.MNT3ERR_NOENT);
                    }
                    remember(new Entry(caller.machine(), address(client), fs.path()));
                    LOG.info("MNT " + path + " by " + caller + " at " + from + " (" + options + ")");
                    return new Mount3.MountResult(fs.rootHandle(), List.of(AuthFlavor.AUTH_SYS));
                });
        builder.register(prog, vers, Mount3.PROC_DUMP, in -> Boolean.TRUE, (a, call) -> {
            List<Entry> list;
            synchronized (mounts) {
                list = new ArrayList<>(mounts.keySet());
            }
            return out -> {
                for (Entry e : list) {
                    out.putBoolean(true)
                            .putString(e.host().isEmpty() ? e.address() : e.host(), Mount3.MNTNAMLEN)
                            .putString(e.path(), Mount3.MNTPATHLEN);
                }
                out.putBoolean(false);
            };
        });
        builder.register(
                prog,
                vers,
                Mount3.PROC_UMNT,
                Mount3::decodeDirpath,
                (byte[] raw, org.panamardma.oncrpc.RpcCall call) -> {
                    String path = new String(raw, StandardCharsets.UTF_8);
                    Optional<ExportGate.Client> client = ExportGate.current();
                    Caller caller = squashing.map(
                            call, client.map(ExportGate.Client::options).orElse(clients.defaults()));
                    synchronized (mounts) {
                        mounts.remove(new Entry(caller.machine(), address(client), fs.path()));
                    }
                    LOG.info("UMNT " + path + " by " + caller);
                    onUnmount.run();
                    return XdrEncodable.VOID;
                });
        builder.register(prog, vers, Mount3.PROC_UMNTALL, in -> Boolean.TRUE, (a, call) -> {
            Optional<ExportGate.Client> client = ExportGate.current();
            Caller caller =
                    squashing.map(call, client.map(ExportGate.Client::options).orElse(clients.defaults()));
            String address = address(client);
            synchronized (mounts) {
                mounts.keySet()
                        .removeIf(e ->
                                e.host().equals(caller.machine()) && e.address().equals(address));
            }
            LOG.info("UMNTALL by " + caller);
            return XdrEncodable.VOID;
        });
        builder.register(prog, vers, Mount3.PROC_EXPORT, in -> Boolean.TRUE, (a, call) -> {
            // one exportnode: the directory and its groups (the client list; "*" for every address)
            List<String> groups = clients.everyAddress()
                    ? List.of("*")
                    : clients.rules().stream().map(r -> r.block().toString()).toList();
            return Mount3.exports(List.of(new Mount3.Export(fs.path(), groups)));
        });
    }
}
