package org.panamardma.verbs.tools;

import java.io.PrintStream;
import java.util.List;
import org.panamardma.verbs.Context;
import org.panamardma.verbs.Device;
import org.panamardma.verbs.DeviceAttributes;
import org.panamardma.verbs.GidEntry;
import org.panamardma.verbs.PortAttributes;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.ffi.Native;

/**
 * The command-line tool: {@code devinfo} lists the RDMA devices as verbs-ffm sees them: transport, atomics, FLUSH
 * and ATOMIC WRITE capabilities, limits, ports and their GIDs.
 */
public final class RdmaTool {
    private RdmaTool() {}

    public static void main(String[] args) {
        String command = args.length == 0 ? "help" : args[0];
        int rc = switch (command) {
            case "devinfo" -> devinfo(System.out);
            default -> {
                System.err.println("usage: rdma-tool devinfo");
                yield command.equals("help") ? 0 : 2;
            }
        };
        System.exit(rc);
    }

    static int devinfo(PrintStream out) {
        if (!Native.ibverbsLoaded()) {
            System.err.println("libibverbs cannot be loaded: " + Native.ibverbsFailure().orElse("?"));
            return 1;
        }
        try {
            List<Device> devices = Device.list();
            if (devices.isEmpty()) {
                out.println("no RDMA devices");
                return 1;
            }
            for (Device d : devices) {
                out.printf("%s: %s transport, node %s, GUID %s%n", d.name(), d.transportType(), d.nodeType(),
                        guid(d.guid()));
                try (Context ctx = Context.open(d.name())) {
                    DeviceAttributes a = ctx.attributes();
                    out.printf("  atomics %-6s  FLUSH global %-3s persistent %-3s  ATOMIC WRITE %-3s  (cap_flags_ex 0x%x)%n",
                            a.atomicCapability(), yes(a.supportsFlushGlobal()), yes(a.supportsFlushPersistent()),
                            yes(a.supportsAtomicWrite()), a.deviceCapFlagsEx());
                    out.printf("  limits: %d QPs x %d WRs, %d SGEs (%d for READ), %d CQEs, %d MRs, %d rd_atom%n",
                            a.maxQp(), a.maxQpWr(), a.maxSge(), a.maxSgeRd(), a.maxCqe(), a.maxMr(), a.maxQpRdAtomic());
                    for (int port = 1; port <= a.physicalPortCount(); port++) {
                        PortAttributes p = ctx.queryPort(port);
                        out.printf("  port %d: %s, %s link, active MTU %d%n", port, p.state(), p.linkLayer(),
                                p.activeMtu().bytes());
                        for (GidEntry g : ctx.gidTable(port)) {
                            out.printf("    gid %2d %-8s %s (%s)%n", g.index(), g.type(), g.gid(),
                                    g.gid().toInetAddress().getHostAddress());
                        }
                    }
                }
            }
            return 0;
        } catch (RdmaException e) {
            System.err.println(e.getMessage());
            return 1;
        }
    }

    private static String yes(boolean b) {
        return b ? "yes" : "no";
    }

    private static String guid(long guid) {
        String hex = String.format("%016x", guid);
        return hex.substring(0, 4) + ":" + hex.substring(4, 8) + ":" + hex.substring(8, 12) + ":" + hex.substring(12);
    }
}
