package org.panamardma.verbs.tools;

import java.io.PrintStream;
import java.util.List;
import org.panamardma.verbs.Device;
import org.panamardma.verbs.RdmaException;
import org.panamardma.verbs.ffi.Native;

/** The command-line tool: {@code devinfo} lists the RDMA devices as verbs-ffm sees them. */
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
            out.printf("%-10s %-12s %-6s %-19s %s%n", "device", "transport", "node", "node GUID", "sysfs");
            for (Device d : devices) {
                out.printf("%-10s %-12s %-6s %-19s %s%n", d.name(), d.transportType(), d.nodeType(), guid(d.guid()),
                        d.ibdevPath());
            }
            return 0;
        } catch (RdmaException e) {
            System.err.println(e.getMessage());
            return 1;
        }
    }

    private static String guid(long guid) {
        String hex = String.format("%016x", guid);
        return hex.substring(0, 4) + ":" + hex.substring(4, 8) + ":" + hex.substring(8, 12) + ":" + hex.substring(12);
    }
}
