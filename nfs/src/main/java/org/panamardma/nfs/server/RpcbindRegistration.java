package org.panamardma.nfs.server;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.panamardma.nfs.Mount3;
import org.panamardma.nfs.Nfs3;
import org.panamardma.nfs.Portmap;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.TcpRpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's entries in the host's rpcbind (port mapper version 2, RFC 1833 section 3: PMAPPROC_SET and UNSET on
 * loopback), so that clients find NFS and MOUNT without being told the ports; taken out again when the server
 * stops. Without rpcbind on the host clients give {@code port} and {@code mountport} themselves.
 */
final class RpcbindRegistration {
    private static final Logger LOG = LoggerFactory.getLogger(NfsServer.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final List<Portmap.Mapping> registered = new ArrayList<>();

    /** Registers NFS on TCP at {@code nfsPort} (none if 0) and MOUNT at {@code mountPort}. */
    void register(int nfsPort, int mountPort) {
        List<Portmap.Mapping> wanted = new ArrayList<>();
        if (nfsPort != 0) {
            wanted.add(new Portmap.Mapping(Nfs3.PROGRAM, Nfs3.VERSION, Portmap.IPPROTO_TCP, nfsPort));
        }
        wanted.add(new Portmap.Mapping(Mount3.PROGRAM, Mount3.VERSION, Portmap.IPPROTO_TCP, mountPort));
        try (TcpRpcTransport rpcbind = connect()) {
            for (Portmap.Mapping m : wanted) {
                boolean done = rpcbind.call(
                        Portmap.PROGRAM,
                        Portmap.PMAP_VERSION,
                        Portmap.PMAPPROC_SET,
                        OpaqueAuth.NONE,
                        Portmap.mapping(m),
                        ReplyReader.of(in -> in.getBoolean()),
                        TIMEOUT);
                if (done) {
                    registered.add(m);
                }
                LOG.info("rpcbind: program " + m.program() + " version " + m.version() + " on TCP port " + m.port()
                        + (done ? " registered" : " not registered (taken?)"));
            }
        } catch (IOException e) {
            LOG.info("no rpcbind on this host (" + e.getMessage() + "): clients give port and mountport");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Takes out what {@link #register} put in. */
    void unregister() {
        if (registered.isEmpty()) {
            return;
        }
        try (TcpRpcTransport rpcbind = connect()) {
            for (Portmap.Mapping m : registered) {
                rpcbind.call(
                        Portmap.PROGRAM,
                        Portmap.PMAP_VERSION,
                        Portmap.PMAPPROC_UNSET,
                        OpaqueAuth.NONE,
                        Portmap.mapping(m),
                        ReplyReader.of(in -> in.getBoolean()),
                        TIMEOUT);
            }
        } catch (IOException e) {
            LOG.debug("rpcbind unset: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        registered.clear();
    }

    private static TcpRpcTransport connect() throws IOException {
        return TcpRpcTransport.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), Portmap.PORT), 1 << 16);
    }
}
