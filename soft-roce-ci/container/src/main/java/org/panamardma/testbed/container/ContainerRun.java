package org.panamardma.testbed.container;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Command line of the privileged-container testbed, the container's counterpart of {@code bin/testbed run}:
 * starts the container with its devices, runs one bash command line in it (in the current folder, which must be
 * inside the work tree), prints its output with the prefix {@code [container] }, removes the container, and exits
 * with the command's exit code (124: it ran out of time; 125: the testbed failed).
 *
 * <pre>
 * java -cp ... org.panamardma.testbed.container.ContainerRun [--work DIR] [--timeout SECONDS] -- COMMAND
 * java -cp ... org.panamardma.testbed.container.ContainerRun [--work DIR] [--timeout SECONDS] --test-class CLASS...
 *     [--test-method CLASS#METHOD(PARAMETER TYPES)...]
 * </pre>
 *
 * The second form runs device tests ({@link RdmaContainer#runDeviceTests}) instead of a command.
 *
 * Settings: {@link ContainerSettings#fromSystemProperties}. Run by {@code soft-roce-ci/container/run.sh}, which
 * also disables testcontainers' resource reaper.
 */
public final class ContainerRun {
    private ContainerRun() {}

    /**
     * Runs a command line, or the device tests the arguments select, in a new container, then removes it.
     *
     * @param args as the class comment shows
     */
    public static void main(String[] args) {
        Path work = Path.of("").toAbsolutePath();
        long timeout = 3600;
        int i = 0;
        List<String> tests = new ArrayList<>();
        for (; i < args.length && !args[i].equals("--"); i += 2) {
            if (i + 1 >= args.length) {
                usage("option " + args[i] + " needs a value");
            }
            switch (args[i]) {
                case "--work" -> work = Path.of(args[i + 1]).toAbsolutePath();
                case "--timeout" -> timeout = Long.parseLong(args[i + 1]);
                case "--test-class" -> tests.addAll(List.of("--select-class", args[i + 1]));
                case "--test-method" -> tests.addAll(List.of("--select-method", args[i + 1]));
                default -> usage("unknown option " + args[i]);
            }
        }
        ContainerSettings settings = ContainerSettings.fromSystemProperties(work);
        Duration limit = Duration.ofSeconds(timeout);
        if (!tests.isEmpty()) {
            System.exit(run(settings, container -> container.runDeviceTests(tests, limit, ContainerRun::print)));
        }
        if (i + 1 >= args.length) {
            usage("no command given");
        }
        String command = String.join(" ", Arrays.asList(args).subList(i + 1, args.length));
        Path cwd = Path.of("").toAbsolutePath();
        System.exit(run(
                settings,
                container -> container.exec(List.of("bash", "-c", command), cwd, limit, ContainerRun::print)));
    }

    private static void print(String line) {
        System.out.println("[container] " + line);
    }

    static int run(ContainerSettings settings, ToIntFunction<RdmaContainer> task) {
        Path cwd = Path.of("").toAbsolutePath();
        if (!cwd.startsWith(settings.work())) {
            System.out.println(
                    "[container] the current folder " + cwd + " is not inside the shared work tree " + settings.work());
            return 125;
        }
        System.out.println("[container] testbed provider: container (image " + settings.image() + ", network "
                + settings.network().name().toLowerCase(java.util.Locale.ROOT)
                + (settings.privileged() ? ", privileged" : "") + "), work tree " + settings.work() + " shared");
        long start = System.nanoTime();
        RdmaContainer container;
        try {
            container = RdmaContainer.start(settings, line -> System.out.println("[container setup] " + line));
        } catch (RuntimeException e) {
            System.out.println("[container] the container testbed failed to start: " + e);
            e.printStackTrace(System.out);
            return 125;
        }
        long ready = System.nanoTime();
        int rc;
        try (container) {
            System.out.printf(
                    "[container] ready in %.1f s: container %s%n",
                    (ready - start) / 1e9, container.id().substring(0, 12));
            rc = task.applyAsInt(container);
        }
        System.out.printf(
                "container-run: exit %d, %.1f s for the command, %.1f s in all%n",
                rc, (System.nanoTime() - ready) / 1e9, (System.nanoTime() - start) / 1e9);
        return rc;
    }

    private static void usage(String problem) {
        System.err.println(
                "ContainerRun: " + problem
                        + "\nusage: ContainerRun [--work DIR] [--timeout SECONDS] (-- COMMAND | --test-class CLASS... --test-method METHOD...)");
        System.exit(125);
    }
}
