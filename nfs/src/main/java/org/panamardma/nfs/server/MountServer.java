package org.panamardma.nfs.server;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.panamardma.nfs.MountClient;
import org.panamardma.nfs.MountStat3;
import org.panamardma.oncrpc.AuthFlavor;
import org.panamardma.oncrpc.RpcDispatcher;
import org.panamardma.xdr.XdrEncodable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MOUNT protocol, version 3 (RFC 1813 appendix I), for one export: MNT answers the root handle and the
 * flavor AUTH_SYS, UMNT and UMNTALL forget a client's mounts, DUMP lists them, EXPORT names the export. Each MNT
 * and UMNT is logged at INFO. Clients are told apart by the machine name of their AUTH_SYS credential (MOUNT has
 * nothing better: RFC 1813 appendix I, section 5.2.2).
 */
final class MountServer {
    private static final Logger LOG = LoggerFactory.getLogger(MountServer.class);

    private final ExportFs fs;
    private final ExportOptions options;
    private final Runnable onUnmount;
    private final Set<Entry> mounts = ConcurrentHashMap.newKeySet();

    private record Entry(String host, String path) {
    }

    /**
     * @param onUnmount run after each UMNT (the server logs its statistics then)
     */
    MountServer(ExportFs fs, ExportOptions options, Runnable onUnmount) {
        this.fs = fs;
        this.options = options;
        this.onUnmount = onUnmount;
    }

    /** Whether {@code path} names the export ("/srv/x" and "/srv/x/" alike). */
    private boolean isExport(String path) {
        String p = path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        return p.equals(fs.path());
    }

    void register(RpcDispatcher.Builder builder) {
        int prog = MountClient.PROGRAM;
        int vers = MountClient.VERSION;
        builder.register(prog, vers, MountClient.PROC_NULL, in -> Boolean.TRUE, (a, call) -> XdrEncodable.VOID);
        builder.register(prog, vers, MountClient.PROC_MNT, in -> in.getOpaqueBytes(MountClient.MNTPATHLEN),
                (byte[] raw, org.panamardma.oncrpc.RpcCall call) -> {
                    String path = new String(raw, StandardCharsets.UTF_8);
                    Caller caller = Caller.of(call, options);
                    if (!isExport(path)) {
                        LOG.info("MNT " + path + " by " + caller + ": not exported");
                        return out -> out.putEnum(MountStat3.MNT3ERR_NOENT.code());
                    }
                    mounts.add(new Entry(caller.machine(), fs.path()));
                    LOG.info("MNT " + path + " by " + caller + (options.rootSquash()
                            ? " (root squashed)" : "") + (options.readOnly() ? ", read-only" : ""));
                    return out -> {
                        out.putEnum(MountStat3.MNT3_OK.code());
                        fs.rootHandle().encodeTo(out);
                        out.putInt(1).putInt(AuthFlavor.AUTH_SYS);
                    };
                });
        builder.register(prog, vers, 2 /* DUMP */, in -> Boolean.TRUE, (a, call) -> {
            List<Entry> list = new ArrayList<>(mounts);
            return out -> {
                for (Entry e : list) {
                    out.putBoolean(true).putString(e.host(), MountClient.MNTNAMLEN)
                            .putString(e.path(), MountClient.MNTPATHLEN);
                }
                out.putBoolean(false);
            };
        });
        builder.register(prog, vers, MountClient.PROC_UMNT, in -> in.getOpaqueBytes(MountClient.MNTPATHLEN),
                (byte[] raw, org.panamardma.oncrpc.RpcCall call) -> {
                    String path = new String(raw, StandardCharsets.UTF_8);
                    Caller caller = Caller.of(call, options);
                    mounts.remove(new Entry(caller.machine(), fs.path()));
                    LOG.info("UMNT " + path + " by " + caller);
                    onUnmount.run();
                    return XdrEncodable.VOID;
                });
        builder.register(prog, vers, 4 /* UMNTALL */, in -> Boolean.TRUE, (a, call) -> {
            Caller caller = Caller.of(call, options);
            mounts.removeIf(e -> e.host().equals(caller.machine()));
            LOG.info("UMNTALL by " + caller);
            return XdrEncodable.VOID;
        });
        builder.register(prog, vers, MountClient.PROC_EXPORT, in -> Boolean.TRUE, (a, call) -> out -> {
            out.putBoolean(true).putString(fs.path(), MountClient.MNTPATHLEN);
            out.putBoolean(true).putString("*", MountClient.MNTNAMLEN).putBoolean(false);
            out.putBoolean(false);
        });
    }
}
