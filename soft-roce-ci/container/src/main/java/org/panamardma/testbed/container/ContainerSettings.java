package org.panamardma.testbed.container;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * How the privileged container is started.
 *
 * @param image      the locally built image (soft-roce-ci/container/import-image.sh); never pulled
 * @param work       the host folder shared into the container at the same path (the project's work tree): the
 *                   device-setup script and the suite's jars are read from there, reports written there
 * @param network    {@code HOST} (the default): the container shares the host's network namespace, the only one
 *                   where Soft-RoCE receives on kernel 6.12 (rxe opens its UDP port 4791 in the initial namespace:
 *                   in the testbed VM, rping over rxe in a namespace of its own timed out); {@code OWN}: a namespace
 *                   of its own, where only siw carries traffic
 * @param privileged whether the container is privileged ({@code rdma link add}, veths, sysctls and modprobe need
 *                   it); a host that refuses privileged containers can only run commands that need none of these
 */
public record ContainerSettings(String image, Path work, Network network, boolean privileged) {

    /** The image name {@code import-image.sh} gives by default. */
    public static final String DEFAULT_IMAGE = "panama-rdma/soft-roce-ci:trixie";

    /** The container's network namespace. */
    public enum Network {
        /** The host's network namespace (the default; see {@code network} above). */
        HOST,
        /** A namespace of its own. */
        OWN
    }

    /** Checks every component and makes {@code work} absolute; {@code work} must be a folder. */
    public ContainerSettings {
        Objects.requireNonNull(image, "image");
        Objects.requireNonNull(work, "work");
        Objects.requireNonNull(network, "network");
        if (!Files.isDirectory(work)) {
            throw new IllegalArgumentException("the work tree to share is not a folder: " + work);
        }
        work = work.toAbsolutePath().normalize();
    }

    /**
     * From system properties: {@code panama.testbed.container.image}, {@code panama.testbed.container.network}
     * ({@code host} or {@code own}), {@code panama.testbed.container.privileged}; the work tree is the given folder.
     *
     * @param work the work tree the container shares
     * @return the settings
     */
    public static ContainerSettings fromSystemProperties(Path work) {
        return new ContainerSettings(
                System.getProperty("panama.testbed.container.image", DEFAULT_IMAGE),
                work,
                Network.valueOf(System.getProperty("panama.testbed.container.network", "host")
                        .trim()
                        .toUpperCase(Locale.ROOT)),
                Boolean.parseBoolean(System.getProperty("panama.testbed.container.privileged", "true")));
    }

    /** The script that creates and removes the container's devices, inside the shared work tree. */
    Path setupScript() {
        return work.resolve("soft-roce-ci/container/setup-devices.sh");
    }
}
