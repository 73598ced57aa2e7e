package org.panamardma.oncrpc4j;

import java.nio.ByteOrder;
import org.dcache.oncrpc4j.xdr.BadXdrOncRpcException;
import org.dcache.oncrpc4j.xdr.Xdr;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.asyncqueue.WritableMessage;
import org.glassfish.grizzly.memory.MemoryManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * oncrpc4j's {@link Xdr}, decoding exactly as it does, with one check more: a count read from the wire (an opaque's
 * or string's length, a vector's element count) is refused ({@link BadXdrOncRpcException}, answered GARBAGE_ARGS)
 * when the call has not that many bytes left, before anything of that size is allocated. oncrpc4j itself allocates
 * first ({@code new byte[length]}, then reads), so a 100-byte call declaring a 2 GiB opaque would make it allocate
 * 2 GiB; here what a client can make the bridge allocate while decoding stays within the call's size, which the
 * RPC-over-RDMA server bounds ({@code maxMessageSizes}), as this project's own XDR decoder keeps it.
 */
final class BoundedXdr extends Xdr {
    private static final Logger LOG = LoggerFactory.getLogger(BoundedXdr.class);
    private static final byte[] NOTHING = new byte[0];

    private final MemoryManager<?> memoryManager;

    BoundedXdr(Buffer body, MemoryManager<?> memoryManager) {
        super(body, memoryManager);
        this.memoryManager = memoryManager;
    }

    /**
     * Takes the encoded reply out of this Xdr: its buffer and its file chunk (oncrpc4j's
     * {@link #asBufferWritableMessages()}), leaving a fresh buffer in their place. oncrpc4j's {@code RpcCall} encodes
     * every reply to a call into the call's one Xdr, clearing it first; the bridge encodes a reply into the
     * RPC-over-RDMA message later, on the call's own thread, so a second reply (refused, but encoded all the same)
     * must not overwrite the first one's bytes meanwhile.
     *
     * @return the buffer (position 0, limit the reply's size), then the file chunk and its padding if there is one
     */
    WritableMessage[] detach() {
        WritableMessage[] parts = asBufferWritableMessages();
        Buffer fresh = memoryManager.allocate(INITIAL_XDR_SIZE);
        fresh.order(ByteOrder.BIG_ENDIAN);
        _buffer = fresh;
        return parts;
    }

    /** The count word at the position, not consumed (the superclass reads it again). */
    private int peekCount() throws BadXdrOncRpcException {
        if (_buffer.remaining() < Integer.BYTES) {
            tooShort();
        }
        return _buffer.getInt(_buffer.position());
    }

    /**
     * Throws oncrpc4j's own "xdr stream too short" (its exception cannot be made outside its package): asks the
     * superclass for one byte more than there is, which it checks before it writes anything.
     */
    private void tooShort() throws BadXdrOncRpcException {
        super.xdrDecodeOpaque(NOTHING, 0, _buffer.remaining() + 1);
        throw new IllegalStateException("oncrpc4j read past the end of the call");
    }

    /** Refuses {@code count} items of {@code unit} wire bytes each when fewer bytes than that follow {@code after}. */
    private void fits(long count, int unit, int after, String what) throws BadXdrOncRpcException {
        long left = _buffer.remaining() - after;
        if (count < 0 || count * unit > left) {
            LOG.atDebug().log(() -> what + " of " + count + " declared, " + left + " bytes left in the call");
            tooShort();
        }
    }

    private void countedFits(int unit, String what) throws BadXdrOncRpcException {
        fits(peekCount(), unit, Integer.BYTES, what);
    }

    @Override
    public byte[] xdrDecodeDynamicOpaque() throws BadXdrOncRpcException {
        countedFits(1, "opaque");
        return super.xdrDecodeDynamicOpaque();
    }

    @Override
    public String xdrDecodeString() throws BadXdrOncRpcException {
        countedFits(1, "string");
        return super.xdrDecodeString();
    }

    /**
     * oncrpc4j checks that the length and its padding are in the call, but adds them as ints: a length of 2^31 - 2
     * with its 2 bytes of padding wraps negative, passes, and the slice's {@code limit} then throws
     * IllegalArgumentException (found by the fuzz target); refused here before that sum.
     */
    @Override
    public java.nio.ByteBuffer xdrDecodeByteBuffer() throws BadXdrOncRpcException {
        countedFits(1, "byte buffer");
        return super.xdrDecodeByteBuffer();
    }

    @Override
    public byte[] xdrDecodeOpaque(int len) throws BadXdrOncRpcException {
        fits(len, 1, 0, "opaque");
        return super.xdrDecodeOpaque(len);
    }

    @Override
    public int[] xdrDecodeIntVector() throws BadXdrOncRpcException {
        countedFits(Integer.BYTES, "int vector");
        return super.xdrDecodeIntVector();
    }

    @Override
    public int[] xdrDecodeIntFixedVector(int length) throws BadXdrOncRpcException {
        fits(length, Integer.BYTES, 0, "int vector");
        return super.xdrDecodeIntFixedVector(length);
    }

    @Override
    public long[] xdrDecodeLongVector() throws BadXdrOncRpcException {
        countedFits(Long.BYTES, "hyper vector");
        return super.xdrDecodeLongVector();
    }

    @Override
    public long[] xdrDecodeLongFixedVector(int length) throws BadXdrOncRpcException {
        fits(length, Long.BYTES, 0, "hyper vector");
        return super.xdrDecodeLongFixedVector(length);
    }

    @Override
    public float[] xdrDecodeFloatVector() throws BadXdrOncRpcException {
        countedFits(Float.BYTES, "float vector");
        return super.xdrDecodeFloatVector();
    }

    @Override
    public float[] xdrDecodeFloatFixedVector(int length) throws BadXdrOncRpcException {
        fits(length, Float.BYTES, 0, "float vector");
        return super.xdrDecodeFloatFixedVector(length);
    }

    @Override
    public double[] xdrDecodeDoubleVector() throws BadXdrOncRpcException {
        countedFits(Double.BYTES, "double vector");
        return super.xdrDecodeDoubleVector();
    }

    @Override
    public double[] xdrDecodeDoubleFixedVector(int length) throws BadXdrOncRpcException {
        fits(length, Double.BYTES, 0, "double vector");
        return super.xdrDecodeDoubleFixedVector(length);
    }

    @Override
    public byte[] xdrDecodeByteVector() throws BadXdrOncRpcException {
        countedFits(Integer.BYTES, "byte vector"); // each byte in a word of its own
        return super.xdrDecodeByteVector();
    }

    @Override
    public byte[] xdrDecodeByteFixedVector(int length) throws BadXdrOncRpcException {
        fits(length, Integer.BYTES, 0, "byte vector");
        return super.xdrDecodeByteFixedVector(length);
    }

    @Override
    public short[] xdrDecodeShortVector() throws BadXdrOncRpcException {
        countedFits(Integer.BYTES, "short vector");
        return super.xdrDecodeShortVector();
    }

    @Override
    public short[] xdrDecodeShortFixedVector(int length) throws BadXdrOncRpcException {
        fits(length, Integer.BYTES, 0, "short vector");
        return super.xdrDecodeShortFixedVector(length);
    }
}
