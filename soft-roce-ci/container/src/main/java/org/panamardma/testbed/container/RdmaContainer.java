package org.panamardma.testbed.container;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.command.ExecCreateCmdResponse;
import com.github.dockerjava.api.exception.NotFoundException;
import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Frame;
import com.github.dockerjava.api.model.StreamType;
import com.github.dockerjava.api.model.Ulimit;
import com.github.dockerjava.api.model.Volume;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The privileged container with RDMA devices of its own: {@link #start} starts the locally built image through
 * testcontainers (never pulling it), shares the work tree at the same path, and creates two Soft-RoCE and two
 * Soft-iWARP devices on veth pairs inside it ({@code setup-devices.sh up}); {@link #exec} runs a command there and
 * brings back its output and exit code; {@link #close} removes the devices and the container.
 *
 * <p>testcontainers' resource reaper (Ryuk) is an image from a registry, which these machines cannot reach, so it
 * is disabled ({@code TESTCONTAINERS_RYUK_DISABLED=true}, set by the launcher script) and the container is removed
 * here: on close, and by a shutdown hook if the JVM ends first.
 */
public final class RdmaContainer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RdmaContainer.class);

    private final ContainerSettings settings;
    private final GenericContainer<?> container;
    private final Thread shutdownHook;
    private boolean closed;

    private RdmaContainer(ContainerSettings settings, GenericContainer<?> container) {
        this.settings = settings;
        this.container = container;
        this.shutdownHook = new Thread(this::removeQuietly, "rdma-container-cleanup");
    }

    /**
     * Starts the container and brings up its devices; a failure of either removes what was made and throws.
     *
     * @param settings the image, the work tree and the network
     * @param progress receives the setup script's output, line by line
     * @return the running container, its devices up
     */
    public static RdmaContainer start(ContainerSettings settings, Consumer<String> progress) {
        requireLocalImage(settings.image());
        GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse(settings.image()))
                // the image is built here from Debian packages; a pull could only fail (no registry) or, worse,
                // fetch something else under the same name
                .withImagePullPolicy(image -> false)
                .withPrivilegedMode(settings.privileged())
                .withNetworkMode(settings.network() == ContainerSettings.Network.HOST ? "host" : "none")
                .withCommand("sleep", "infinity")
                .withStartupTimeout(Duration.ofMinutes(3))
                .withCreateContainerCmdModifier(cmd -> {
                    List<Bind> binds = new ArrayList<>();
                    binds.add(new Bind(
                            settings.work().toString(),
                            new Volume(settings.work().toString()),
                            AccessMode.rw));
                    if (Files.isDirectory(Path.of("/lib/modules"))) {
                        // where the host allows it, the setup loads rdma_rxe and siw itself
                        binds.add(new Bind("/lib/modules", new Volume("/lib/modules"), AccessMode.ro));
                    }
                    cmd.getHostConfig().withBinds(binds);
                    if (settings.privileged()) {
                        // memory registrations pin pages: no limit, as rdma-core advises (the VM does the same);
                        // raising it needs the privileges a privileged container has
                        cmd.getHostConfig().withUlimits(List.of(new Ulimit("memlock", -1L, -1L)));
                    }
                });
        c.start();
        RdmaContainer rc = new RdmaContainer(settings, c);
        Runtime.getRuntime().addShutdownHook(rc.shutdownHook);
        try {
            int setup = rc.exec(
                    List.of("bash", settings.setupScript().toString(), "up"),
                    settings.work(),
                    Duration.ofMinutes(3),
                    progress);
            if (setup != 0) {
                throw new IllegalStateException("the container's RDMA device setup failed (exit " + setup + ")");
            }
        } catch (RuntimeException e) {
            rc.close();
            throw e;
        }
        return rc;
    }

    private static void requireLocalImage(String image) {
        DockerClient docker = DockerClientFactory.instance().client();
        try {
            docker.inspectImageCmd(image).exec();
        } catch (NotFoundException e) {
            throw new IllegalStateException(
                    "the container image " + image + " is not in the local Docker: build it "
                            + "with soft-roce-ci/container/import-image.sh (from Debian packages; nothing is pulled)",
                    e);
        }
    }

    /**
     * The container's id.
     *
     * @return the container's id, for {@code docker} commands
     */
    public String id() {
        return container.getContainerId();
    }

    /**
     * Runs a command in the container and waits for it.
     *
     * @param command the program and its arguments
     * @param dir     the working folder inside the container (the work tree is at the same path as on the host)
     * @param limit   how long it may run; past that the container is removed and 124 returned
     * @param output  receives stdout and stderr, line by line, as they come
     * @return the command's exit code
     */
    public int exec(List<String> command, Path dir, Duration limit, Consumer<String> output) {
        Objects.requireNonNull(output, "output");
        if (closed) {
            throw new IllegalStateException("the container is closed");
        }
        DockerClient docker = container.getDockerClient();
        ExecCreateCmdResponse created = docker.execCreateCmd(container.getContainerId())
                .withCmd(command.toArray(String[]::new))
                .withWorkingDir(dir.toString())
                .withAttachStdout(true)
                .withAttachStderr(true)
                .exec();
        LineSink out = new LineSink(output);
        LineSink err = new LineSink(output);
        try (ResultCallback.Adapter<Frame> callback = docker.execStartCmd(created.getId())
                .exec(new ResultCallback.Adapter<>() {
                    @Override
                    public void onNext(Frame frame) {
                        (frame.getStreamType() == StreamType.STDERR ? err : out).accept(frame.getPayload());
                    }
                })) {
            boolean finished = callback.awaitCompletion(limit.toMillis(), TimeUnit.MILLISECONDS);
            out.flush();
            err.flush();
            if (!finished) {
                output.accept("[container] " + String.join(" ", command) + " did not finish within " + limit
                        + "; removing the container");
                close();
                return 124;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + command, e);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("closing the output stream of " + command, e);
        }
        Long code = docker.inspectExecCmd(created.getId()).exec().getExitCodeLong();
        if (code == null) {
            throw new IllegalStateException("Docker reported no exit code for " + command);
        }
        return code.intValue();
    }

    /**
     * Runs device tests in the container: the device suite's runner ({@code soft-roce-ci/device-suite/run-suite.sh},
     * on the module path, a missing device a failure) with JUnit console selectors such as
     * {@code --select-class org.panamardma.verbs.DeviceListDeviceTest}; its JUnit XML reports go to
     * {@code device-suite/target/container-reports}. Needs {@code ./mvnw -Ptestbed package} first.
     *
     * @param selectors JUnit console selectors
     * @param limit how long the run may take
     * @param output receives the runner's output, line by line
     * @return the runner's exit code: 0 only if every selected test ran and passed, none skipped
     */
    public int runDeviceTests(List<String> selectors, Duration limit, Consumer<String> output) {
        Path suite = settings.work().resolve("soft-roce-ci/device-suite");
        List<String> command = new ArrayList<>(List.of(
                "env",
                "SUITE_TAGS=rdma-device",
                "REPORTS_DIR=" + suite.resolve("target/container-reports"),
                "./run-suite.sh",
                "target/lib"));
        command.addAll(selectors);
        return exec(command, suite, limit, output);
    }

    /** Removes the container's devices, then the container. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            int down = exec(
                    List.of("bash", settings.setupScript().toString(), "down"),
                    settings.work(),
                    Duration.ofMinutes(1),
                    line -> log.info("{}", line));
            if (down != 0) {
                log.warn("removing the container's RDMA devices failed (exit {})", down);
            }
        } catch (RuntimeException e) {
            log.warn("removing the container's RDMA devices failed", e);
        } finally {
            closed = true;
            container.stop();
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException shuttingDown) {
                // called from the hook itself
            }
        }
    }

    private void removeQuietly() {
        try {
            close();
        } catch (RuntimeException e) {
            log.warn("removing the container at exit failed", e);
        }
    }
}
