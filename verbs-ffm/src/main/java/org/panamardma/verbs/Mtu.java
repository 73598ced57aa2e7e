package org.panamardma.verbs;

/** {@code enum ibv_mtu}: the path MTU of a queue pair. */
public enum Mtu {
    /** {@code IBV_MTU_256}. */
    MTU_256(1, 256),
    /** {@code IBV_MTU_512}. */
    MTU_512(2, 512),
    /** {@code IBV_MTU_1024}: RoCE's usual path MTU on a 1500-byte Ethernet. */
    MTU_1024(3, 1024),
    /** {@code IBV_MTU_2048}. */
    MTU_2048(4, 2048),
    /** {@code IBV_MTU_4096}. */
    MTU_4096(5, 4096);

    private final int value;
    private final int bytes;

    Mtu(int value, int bytes) {
        this.value = value;
        this.bytes = bytes;
    }

    /** {@return the {@code IBV_MTU_*} value (enum ibv_mtu: 1 for 256 bytes up to 5 for 4096)} */
    public int value() {
        return value;
    }

    /** {@return the MTU in bytes} */
    public int bytes() {
        return bytes;
    }

    static Mtu of(int value) {
        for (Mtu m : values()) {
            if (m.value == value) {
                return m;
            }
        }
        throw new IllegalArgumentException("not an ibv_mtu value: " + value);
    }
}
