package org.panamardma.verbs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.panamardma.verbs.ffi.VerbsOps;
import org.panamardma.verbs.ffi.ibv_device_attr;
import org.panamardma.verbs.ffi.ibv_device_attr_ex;
import org.panamardma.verbs.ffi.verbs_h;

/**
 * The device query a {@link Context} makes once, at open: {@code ibv_query_device_ex} where the provider has it
 * (through the op pointer the context found), else {@code ibv_query_device}, decoded into {@link DeviceAttributes}.
 */
final class DeviceQuery {
    private DeviceQuery() {}

    /**
     * Queries the device of the open context {@code handle}; {@code queryDeviceExFn} is the provider's
     * {@code query_device_ex} op, or NULL where it has none (then, and on EOPNOTSUPP or ENOSYS, the plain query).
     */
    static DeviceAttributes query(MemorySegment handle, String deviceName, MemorySegment queryDeviceExFn)
            throws RdmaException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment attr = arena.allocate(ibv_device_attr_ex.layout());
            int rc = Errno.EOPNOTSUPP;
            if (!queryDeviceExFn.equals(MemorySegment.NULL)) {
                rc = (int) VerbsOps.QUERY_DEVICE_EX.invokeExact(
                        queryDeviceExFn, handle, MemorySegment.NULL, attr, attr.byteSize());
            }
            if (rc == Errno.EOPNOTSUPP || rc == Errno.ENOSYS) {
                attr.fill((byte) 0);
                rc = verbs_h.ibv_query_device(handle, attr);
            }
            if (rc != 0) {
                throw new RdmaException("ibv_query_device_ex(" + deviceName + ")", rc);
            }
            long o = ibv_device_attr_ex.orig_attr$OFFSET;
            return new DeviceAttributes(
                    attr.getString(o + ibv_device_attr.fw_ver$OFFSET),
                    Long.reverseBytes(attr.get(JAVA_LONG, o + ibv_device_attr.node_guid$OFFSET)),
                    attr.get(JAVA_LONG, o + ibv_device_attr.max_mr_size$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.vendor_id$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.vendor_part_id$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.max_qp$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.max_qp_wr$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.max_sge$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.max_sge_rd$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.max_cq$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.max_cqe$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.max_mr$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.max_pd$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.max_qp_rd_atom$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.max_qp_init_rd_atom$OFFSET),
                    AtomicCapability.of(attr.get(JAVA_INT, o + ibv_device_attr.atomic_cap$OFFSET)),
                    attr.get(JAVA_INT, o + ibv_device_attr.max_srq$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.max_srq_wr$OFFSET),
                    attr.get(JAVA_INT, o + ibv_device_attr.max_srq_sge$OFFSET),
                    Byte.toUnsignedInt(attr.get(JAVA_BYTE, o + ibv_device_attr.phys_port_cnt$OFFSET)),
                    attr.get(JAVA_INT, o + ibv_device_attr.device_cap_flags$OFFSET),
                    attr.get(JAVA_LONG, ibv_device_attr_ex.device_cap_flags_ex$OFFSET));
        } catch (RdmaException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
