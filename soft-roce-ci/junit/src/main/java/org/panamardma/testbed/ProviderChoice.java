package org.panamardma.testbed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * Which {@link TestbedProvider} gives this machine's device tests their devices, and why.
 *
 * <p>The order: the host's own ACTIVE devices; else the privileged container, where Docker answers on its socket
 * and the kernel has rdma_rxe and siw (loaded, or in {@code /lib/modules/<release>} for the container to load); else
 * the VM. The system property {@value #OVERRIDE} ({@code host}, {@code container} or {@code vm}) overrides the
 * choice: CI uses it to run the container path inside the VM, which has devices of its own.
 *
 * @param provider the provider
 * @param reason   what was found, for the line every run prints
 */
public record ProviderChoice(TestbedProvider provider, String reason) {
    /** The override: {@code -Dpanama.testbed.provider=container}. */
    public static final String OVERRIDE = "panama.testbed.provider";

    /**
     * Checks that both are given.
     *
     * @param provider where the device tests run
     * @param reason why, for the log
     */
    public ProviderChoice {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(reason, "reason");
    }

    /**
     * Chooses for this machine.
     *
     * @return the choice for this machine
     */
    public static ProviderChoice choose() {
        return choose(
                System.getProperty(OVERRIDE, ""),
                TestbedDevices.discover(),
                Path.of("/"),
                System::getenv,
                System.getProperty("os.version", ""));
    }

    /**
     * The choice from what was found: the override (empty: none), the host's devices, the root of the file system
     * to probe (Docker's socket, /sys/module, /lib/modules), the environment and the kernel release.
     */
    static ProviderChoice choose(
            String override, TestbedDevices host, Path root, Function<String, String> env, String kernelRelease) {
        if (!override.isBlank()) {
            TestbedProvider p;
            try {
                p = TestbedProvider.valueOf(override.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(OVERRIDE + " must be host, container or vm, not " + override, e);
            }
            return new ProviderChoice(p, "set by -D" + OVERRIDE + "=" + override.trim());
        }
        if (!host.devices().isEmpty()) {
            return new ProviderChoice(TestbedProvider.HOST, "this machine has " + host.describe());
        }
        String noDevice = "no RDMA device here (" + host.describe() + ")";
        String docker = dockerSocket(root, env);
        List<String> missing = new ArrayList<>();
        List<String> found = new ArrayList<>();
        for (String module : List.of("rdma_rxe", "siw")) {
            String where = moduleAvailability(root, kernelRelease, module);
            (where == null ? missing : found).add(where == null ? module : module + " " + where);
        }
        if (docker != null && missing.isEmpty()) {
            return new ProviderChoice(
                    TestbedProvider.CONTAINER, noDevice + "; Docker at " + docker + "; " + String.join(", ", found));
        }
        String why = docker == null ? "no Docker socket" : "Docker at " + docker;
        if (!missing.isEmpty()) {
            why += "; the kernel has no " + String.join(", ", missing);
        }
        return new ProviderChoice(TestbedProvider.VM, noDevice + "; no privileged container: " + why);
    }

    /** The Docker daemon's Unix socket if there is one (DOCKER_HOST, else /var/run/docker.sock), or null. */
    private static String dockerSocket(Path root, Function<String, String> env) {
        String host = env.apply("DOCKER_HOST");
        if (host != null && !host.isBlank()) {
            if (!host.startsWith("unix://")) {
                return host; // tcp:// and the like: nothing to probe on this file system
            }
            Path socket = root.resolve(host.substring("unix://".length()).replaceFirst("^/+", ""));
            return Files.exists(socket) ? host : null;
        }
        Path socket = root.resolve("var/run/docker.sock");
        return Files.exists(socket) ? "/var/run/docker.sock" : null;
    }

    /** "loaded", "in /lib/modules/<release>", or null when the kernel cannot have the module. */
    private static String moduleAvailability(Path root, String kernelRelease, String module) {
        if (Files.isDirectory(root.resolve("sys/module").resolve(module))) {
            return "loaded";
        }
        Path dep = root.resolve("lib/modules").resolve(kernelRelease).resolve("modules.dep");
        if (kernelRelease.isBlank() || !Files.isReadable(dep)) {
            return null;
        }
        String name = "/" + module + ".ko";
        try (var lines = Files.lines(dep)) {
            boolean present = lines.map(l -> l.substring(0, Math.max(0, l.indexOf(':'))))
                    .anyMatch(f -> f.endsWith(name) || f.contains(name + "."));
            return present ? "in /lib/modules/" + kernelRelease : null;
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + dep, e);
        }
    }

    /** The line a run prints, e.g. {@code testbed provider: container (no RDMA device here ...)}. */
    @Override
    public String toString() {
        return "testbed provider: " + provider.name().toLowerCase(Locale.ROOT) + " (" + reason + ")";
    }

    /**
     * Prints the choice for scripts: the first line {@code provider=host|container|vm}, the second the reason.
     * {@code device-suite/run-device-tests.sh} runs it to pick where the device suite runs.
     *
     * @param args none
     */
    public static void main(String[] args) {
        ProviderChoice c = choose();
        System.out.println("provider=" + c.provider().name().toLowerCase(Locale.ROOT));
        System.out.println(c);
    }
}
