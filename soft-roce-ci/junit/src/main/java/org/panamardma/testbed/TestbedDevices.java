package org.panamardma.testbed;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * The RDMA devices this machine offers to tests, with their state.
 *
 * <p>Inside the testbed VM the guest describes its layout in {@value #DESCRIPTOR} (devices, their addresses and
 * which device is on the other end of each wire). Elsewhere the devices are found in {@code /sys/class/infiniband}
 * and only those whose port 1 is ACTIVE are offered.
 */
public final class TestbedDevices {
    /** Written by soft-roce-ci/guest/setup-rdma.sh inside the VM. */
    public static final String DESCRIPTOR = "/run/testbed/devices.properties";

    private static final Path SYSFS = Path.of("/sys/class/infiniband");
    private static volatile TestbedDevices cached;
    private static volatile Path cachedFor;

    private final List<RdmaTestDevice> devices;
    private final List<String> inactive;
    private final Optional<PmemDevice> pmem;
    private final String source;

    private TestbedDevices(
            List<RdmaTestDevice> devices, List<String> inactive, Optional<PmemDevice> pmem, String source) {
        this.devices = List.copyOf(devices);
        this.inactive = List.copyOf(inactive);
        this.pmem = pmem;
        this.source = source;
    }

    /**
     * Discovers the devices once per JVM (per descriptor path: the system property {@code rdma.testbed.descriptor}
     * overrides {@value #DESCRIPTOR}).
     *
     * @return the devices of this machine
     */
    public static TestbedDevices discover() {
        Path descriptor = Path.of(System.getProperty("rdma.testbed.descriptor", DESCRIPTOR));
        synchronized (TestbedDevices.class) {
            if (cached == null || !descriptor.equals(cachedFor)) {
                cached = load(descriptor, SYSFS);
                cachedFor = descriptor;
            }
            return cached;
        }
    }

    static TestbedDevices load(Path descriptor, Path sysfs) {
        try {
            if (Files.isRegularFile(descriptor)) {
                return fromDescriptor(descriptor, sysfs);
            }
            return fromSysfs(sysfs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the RDMA device list", e);
        }
    }

    /**
     * The ACTIVE devices.
     *
     * @return the ACTIVE devices
     */
    public List<RdmaTestDevice> devices() {
        return devices;
    }

    /**
     * Looks a device up by name.
     *
     * @param name its name, as {@code ibv_devices} prints it
     * @return the ACTIVE device of that name, if there is one
     */
    public Optional<RdmaTestDevice> byName(String name) {
        return devices.stream().filter(d -> d.name().equals(name)).findFirst();
    }

    /**
     * The first ACTIVE device of the transport, preferring one with a peer (so traffic crosses a wire) and, among
     * those, the lowest name (rxe0 before rxe1: tests act as the client on device 0).
     *
     * @param transport the kind of device wanted
     * @return that device, if there is one
     */
    public Optional<RdmaTestDevice> find(Transport transport) {
        return devices.stream()
                .filter(d -> transport.accepts(d.transport()))
                .min(Comparator.comparing((RdmaTestDevice d) -> d.peerName().isEmpty())
                        .thenComparing(RdmaTestDevice::name));
    }

    /**
     * The emulated persistent memory.
     *
     * @return the device-DAX device, if the machine has one
     */
    public Optional<PmemDevice> pmem() {
        return pmem;
    }

    /**
     * Describes the discovery for messages.
     *
     * @return where the devices were found, and which were seen but not ACTIVE
     */
    public String describe() {
        StringBuilder sb = new StringBuilder(source).append(": ");
        sb.append(devices.isEmpty() ? "no active device" : devices.toString());
        if (!inactive.isEmpty()) {
            sb.append("; not ACTIVE: ").append(inactive);
        }
        return sb.toString();
    }

    private static TestbedDevices fromDescriptor(Path file, Path sysfs) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        List<RdmaTestDevice> devices = new ArrayList<>();
        List<String> inactive = new ArrayList<>();
        for (String key : p.stringPropertyNames().stream().sorted().toList()) {
            if (!key.startsWith("device.") || !key.endsWith(".transport")) {
                continue;
            }
            String name = key.substring("device.".length(), key.length() - ".transport".length());
            String prefix = "device." + name + ".";
            if (!portState(sysfs, name).contains("ACTIVE")) {
                inactive.add(name + " (" + portState(sysfs, name) + ")");
                continue;
            }
            devices.add(new RdmaTestDevice(
                    name,
                    Transport.valueOf(p.getProperty(key).trim()),
                    p.getProperty(prefix + "netdev", ""),
                    address(p.getProperty(prefix + "ipv4")),
                    address(p.getProperty(prefix + "ipv6")),
                    Optional.ofNullable(p.getProperty(prefix + "peer")).filter(s -> !s.isBlank())));
        }
        Optional<PmemDevice> pmem = Optional.ofNullable(p.getProperty("pmem.device"))
                .map(dev -> new PmemDevice(
                        Path.of(dev),
                        Long.parseLong(p.getProperty("pmem.size", "0").trim()),
                        Long.parseLong(p.getProperty("pmem.align", "2097152").trim())));
        return new TestbedDevices(devices, inactive, pmem, "testbed descriptor " + file);
    }

    private static TestbedDevices fromSysfs(Path sysfs) throws IOException {
        List<RdmaTestDevice> devices = new ArrayList<>();
        List<String> inactive = new ArrayList<>();
        if (Files.isDirectory(sysfs)) {
            try (Stream<Path> s = Files.list(sysfs)) {
                for (Path dev : s.sorted().toList()) {
                    String name = dev.getFileName().toString();
                    String state = portState(sysfs, name);
                    if (!state.contains("ACTIVE")) {
                        inactive.add(name + " (" + state + ")");
                        continue;
                    }
                    String netdev =
                            firstLine(dev.resolve("ports/1/gid_attrs/ndevs/0")).orElse("");
                    devices.add(new RdmaTestDevice(
                            name,
                            transportOf(dev),
                            netdev,
                            interfaceAddress(netdev, false),
                            interfaceAddress(netdev, true),
                            Optional.empty()));
                }
            }
        }
        return new TestbedDevices(devices, inactive, Optional.empty(), sysfs.toString());
    }

    /** node_type "4: RNIC" is iWARP; a CA is RoCE on an Ethernet link, InfiniBand otherwise. */
    private static Transport transportOf(Path dev) throws IOException {
        String nodeType = firstLine(dev.resolve("node_type")).orElse("");
        if (nodeType.startsWith("4")) {
            return Transport.IWARP;
        }
        String linkLayer = firstLine(dev.resolve("ports/1/link_layer")).orElse("");
        return linkLayer.equalsIgnoreCase("Ethernet") ? Transport.ROCE : Transport.INFINIBAND;
    }

    private static String portState(Path sysfs, String name) {
        try {
            return firstLine(sysfs.resolve(name).resolve("ports/1/state")).orElse("missing");
        } catch (IOException e) {
            return "unreadable: " + e.getMessage();
        }
    }

    private static Optional<String> firstLine(Path file) throws IOException {
        if (!Files.isReadable(file)) {
            return Optional.empty();
        }
        try (Stream<String> lines = Files.lines(file)) {
            return lines.findFirst().map(String::trim);
        }
    }

    private static Optional<InetAddress> address(String literal) {
        if (literal == null || literal.isBlank()) {
            return Optional.empty();
        }
        try {
            // a literal address: no name lookup happens
            return Optional.of(InetAddress.getByName(literal.trim()));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("bad address in testbed descriptor: " + literal, e);
        }
    }

    private static Optional<InetAddress> interfaceAddress(String netdev, boolean v6) throws SocketException {
        if (netdev.isEmpty()) {
            return Optional.empty();
        }
        NetworkInterface nif = NetworkInterface.getByName(netdev);
        if (nif == null) {
            return Optional.empty();
        }
        return nif.inetAddresses()
                .filter(a -> v6 ? a instanceof Inet6Address && !a.isLinkLocalAddress() : a instanceof Inet4Address)
                .findFirst();
    }
}
