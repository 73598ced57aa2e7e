package org.panamardma.netty;

/** A work request id: its kind in the top byte, the slot (receive or send buffer) in the low 32 bits. */
final class WrIds {
    static final int RECEIVE = 1;
    static final int SEND = 2;
    static final int WRITE = 3;
    static final int PROBE = 4;

    private WrIds() {}

    static long receive(int slot) {
        return ((long) RECEIVE << 56) | slot;
    }

    static long send(int slot) {
        return ((long) SEND << 56) | slot;
    }

    static long of(int kind, int slot) {
        return ((long) kind << 56) | slot;
    }

    static int kind(long wrId) {
        return (int) (wrId >>> 56);
    }

    static int slot(long wrId) {
        return (int) wrId;
    }
}
