package org.panamardma.examples;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import org.panamardma.nfs.FileHandle3;
import org.panamardma.nfs.MountClient;
import org.panamardma.nfs.Nfs3Client;
import org.panamardma.nfs.StableHow;
import org.panamardma.nfs.rpc.RdmaRpcTransport;
import org.panamardma.nfs.rpc.TcpRpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.rpcrdma.client.RpcRdmaClientOptions;

/**
 * The README's NFSv3 client examples: over TCP ({@link #overTcp()}) and over RPC-over-RDMA ({@link #overRdma()}),
 * against an NFSv3 server at {@code host} exporting {@code exportPath} with a 1 MiB {@code pattern.bin} (knfsd in
 * the README's text; the Java NFS server in the device tests).
 */
public final class NfsClients {
    private final String host;
    private final String exportPath;
    private final int mountPort;
    private final int nfsPort;
    private final int rdmaPort;
    private final Duration timeout = Duration.ofSeconds(60);
    // what the RDMA example takes from the TCP one ("root handle from MountClient over TCP, as above")
    private final OpaqueAuth root = Nfs3Client.authSys("me", 0, 0);
    private FileHandle3 export;

    public NfsClients(String host, String exportPath, int mountPort, int nfsPort, int rdmaPort) {
        this.host = host;
        this.exportPath = exportPath;
        this.mountPort = mountPort;
        this.nfsPort = nfsPort;
        this.rdmaPort = rdmaPort;
    }

    /** MOUNT, then READ and WRITE back {@code pattern.bin} over TCP, then READDIRPLUS. */
    public void overTcp() throws IOException, InterruptedException {
        // spotless:off (the README shows this region as written here: ReadmeExamplesTest)
        // README begin: nfs-tcp
        try (TcpRpcTransport mountd = TcpRpcTransport.connect(host, mountPort);           // from PortmapClient.getPort
             TcpRpcTransport nfsd = TcpRpcTransport.connect(host, nfsPort)) {             // knfsd: Nfs3.TCP_PORT
            OpaqueAuth root = Nfs3Client.authSys("me", 0, 0);                                // AUTH_SYS uid 0 / gid 0
            FileHandle3 export = new MountClient(mountd, root, timeout).mount(exportPath).root();
            Nfs3Client nfs = new Nfs3Client(nfsd, root, timeout);
            FileHandle3 file = nfs.lookup(export, "pattern.bin").handle();
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment data = arena.allocate(1 << 20);
                nfs.readFully(file, 0, data, 1 << 20);                                        // READ, into your memory
                nfs.write(file, 0, data, StableHow.FILE_SYNC);                                // WRITE, from your memory
            }
            nfs.listDirectory(export, 8192, true).forEach(e -> System.out.println(e.name())); // READDIRPLUS
        }
        // README end
        // spotless:on
    }

    /** MOUNT over TCP for the root handle, then READ and WRITE {@code pattern.bin} over RPC-over-RDMA. */
    public void overRdma() throws IOException, InterruptedException {
        try (TcpRpcTransport mountd = TcpRpcTransport.connect(host, mountPort)) {
            export = new MountClient(mountd, root, timeout).mount(exportPath).root();
        }
        // spotless:off (the README shows this region as written here: ReadmeExamplesTest)
        // README begin: nfs-rdma
        RpcRdmaClientOptions options = RpcRdmaClientOptions.DEFAULTS;                         // 4 KiB inline, 64 credits
        try (RdmaRpcTransport rdma = RdmaRpcTransport.connect(new InetSocketAddress(host, rdmaPort), options)) {
            System.out.println(rdma.client().negotiated());           // both sides' RFC 8797 sizes, thresholds, credit grant
            Nfs3Client nfs = new Nfs3Client(rdma, root, timeout);     // root handle from MountClient over TCP, as above
            FileHandle3 file = nfs.lookup(export, "pattern.bin").handle();
            try (Arena arena = Arena.ofShared()) {
                MemorySegment data = arena.allocate(1 << 20);
                nfs.readFully(file, 0, data);   // READs of rtpref; the server RDMA-Writes into `data` (Write list), no copy
                nfs.writeFully(file, 0, data, StableHow.FILE_SYNC);  // WRITEs of wtpref; the server RDMA-Reads them (Read chunks)
            }
        }
        // README end
        // spotless:on
    }
}
