package org.panamardma.nfs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What the two ways of running the Java NFS server under test share: its name, the fresh export and state folders
 * the constructor makes for it in the guest, the address and the three ports it listens on.
 */
abstract class JavaNfsServerSite implements NfsServerUnderTest {
    final String name;
    final Path export;
    final Path state;
    final String address;
    final int tcpPort;
    final int mountPort;
    final int rdmaPort;

    JavaNfsServerSite(String name, String address, int tcpPort, int mountPort, int rdmaPort)
            throws IOException, InterruptedException {
        this.name = name;
        this.address = address;
        this.tcpPort = tcpPort;
        this.mountPort = mountPort;
        this.rdmaPort = rdmaPort;
        this.export = Path.of("/srv/panama-java-nfs-" + name);
        this.state = Path.of("/run/panama-java-nfs-state-" + name);
        KnfsdServer.run(List.of("rm", "-rf", export.toString(), state.toString()), 60);
        Files.createDirectories(export);
        // root is squashed (the server's default): the kernel client's root acts as 65534, who must be able to write
        KnfsdServer.run(List.of("chmod", "0777", export.toString()), 10);
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final Path export() {
        return export;
    }

    @Override
    public final String address() {
        return address;
    }

    @Override
    public final int tcpPort() {
        return tcpPort;
    }

    @Override
    public final int mountPort() {
        return mountPort;
    }

    @Override
    public final int rdmaPort() {
        return rdmaPort;
    }
}
