package org.panamardma.netty;

/** A bounded FIFO of ints (receive slots in stream order), allocation-free. */
final class IntRing {
    private final int[] items;
    private int head;
    private int size;

    IntRing(int capacity) {
        items = new int[capacity];
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    void add(int v) {
        if (size == items.length) {
            throw new IllegalStateException("ring full (" + items.length + ")");
        }
        items[(head + size) % items.length] = v;
        size++;
    }

    int poll() {
        if (size == 0) {
            throw new IllegalStateException("ring empty");
        }
        int v = items[head];
        head = (head + 1) % items.length;
        size--;
        return v;
    }

    void clear() {
        head = 0;
        size = 0;
    }
}
