package org.panamardma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.panamardma.testbed.RdmaDeviceTest;
import org.panamardma.testbed.RdmaTestDevice;
import org.panamardma.testbed.Transport;
import org.panamardma.verbs.ffi.verbs_h;

/** Querying devices, ports and GID tables on rxe and siw: what the kernel says, seen through FFM. */
class DeviceQueryDeviceTest {

    @Test
    @RdmaDeviceTest(transport = Transport.ROCE)
    void rxeReportsAtomicsFlushAtomicWriteFromLinux62AndAnActivePortWithRoceV2Gids(RdmaTestDevice device)
            throws RdmaException {
        try (Context ctx = Context.open(device.name())) {
            DeviceAttributes a = ctx.attributes();
            assertEquals(TransportType.INFINIBAND, ctx.transportType());
            assertEquals(AtomicCapability.HCA, a.atomicCapability(), "rxe: ATOMIC_HCA");
            // the kernel's capabilities, passed through by every supported libibverbs (44 copies
            // device_cap_flags_ex as the kernel gives it: cmd_device.c ibv_cmd_query_device_any)
            String flags = "device_cap_flags_ex 0x" + Long.toHexString(a.deviceCapFlagsEx()) + " on Linux "
                    + System.getProperty("os.version");
            assertEquals(Expect.rxeKernelFlushAndAtomicWrite(), a.supportsFlushGlobal(), flags);
            assertEquals(Expect.rxeKernelFlushAndAtomicWrite(), a.supportsFlushPersistent(), flags);
            assertEquals(Expect.rxeKernelFlushAndAtomicWrite(), a.supportsAtomicWrite(), flags);
            assertTrue(a.maxQp() > 0 && a.maxQpWr() > 0 && a.maxCqe() > 0 && a.maxMr() > 0, a.toString());
            assertTrue(a.maxQpRdAtomic() > 0, "responder resources");
            assertEquals(1, a.physicalPortCount());

            PortAttributes port = ctx.queryPort(1);
            assertEquals(PortState.ACTIVE, port.state());
            assertEquals(LinkLayer.ETHERNET, port.linkLayer());
            assertEquals(Mtu.MTU_4096, port.activeMtu(), "jumbo veth gives rxe 4096");

            List<GidEntry> gids = ctx.gidTable(1);
            String ipv4 = device.ipv4().orElseThrow().getHostAddress();
            assertTrue(
                    gids.stream()
                            .anyMatch(g -> g.type() == GidType.ROCE_V2
                                    && g.gid().isIpv4Mapped()
                                    && g.gid().toInetAddress().getHostAddress().equals(ipv4)),
                    "a RoCE v2 GID of " + ipv4 + " in " + gids);
            assertTrue(
                    gids.stream()
                            .anyMatch(g -> g.type() == GidType.ROCE_V2
                                    && g.gid().equals(Gid.of(device.ipv6().orElseThrow()))),
                    "a RoCE v2 GID of the IPv6 address");
        }
    }

    @Test
    @RdmaDeviceTest(transport = Transport.IWARP)
    void siwReportsNoAtomicsNoFlushAndAnActivePort(RdmaTestDevice device) throws RdmaException {
        try (Context ctx = Context.open(device.name())) {
            DeviceAttributes a = ctx.attributes();
            assertEquals(TransportType.IWARP, ctx.transportType());
            assertEquals(AtomicCapability.NONE, a.atomicCapability());
            assertFalse(a.supportsAtomics() || a.supportsFlushGlobal() || a.supportsAtomicWrite());
            assertEquals(1, a.maxSgeRd(), "siw reads into one SGE");
            assertEquals(PortState.ACTIVE, ctx.queryPort(1).state());
        }
    }

    @Test
    @RdmaDeviceTest(transport = Transport.ROCE)
    void completionStatusNamesMatchLibibverbs(RdmaTestDevice device) {
        for (WcStatus status : WcStatus.values()) {
            if (status == WcStatus.UNKNOWN) {
                continue;
            }
            String c =
                    verbs_h.ibv_wc_status_str(status.ordinal()).reinterpret(256).getString(0);
            assertEquals(c, status.description(), status.cName());
        }
    }

    @Test
    @RdmaDeviceTest(transport = Transport.ANY)
    void openingAnUnknownDeviceSaysWhichExist(RdmaTestDevice device) {
        RdmaException e = org.junit.jupiter.api.Assertions.assertThrows(
                RdmaException.class, () -> Context.open("no-such-device"));
        assertTrue(e.getMessage().contains(device.name()), e.getMessage());
    }
}
