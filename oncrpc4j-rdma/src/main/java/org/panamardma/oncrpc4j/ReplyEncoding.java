package org.panamardma.oncrpc4j;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import org.glassfish.grizzly.Buffer;
import org.glassfish.grizzly.FileChunk;
import org.panamardma.xdr.XdrEncoder;

/**
 * Re-encodes a reply as oncrpc4j encoded it (an {@code Xdr}: a Grizzly {@link Buffer}, possibly a composite of shallow
 * buffers, and at most one {@link FileChunk} after it) into the RPC-over-RDMA server's encoder.
 *
 * <p>The bytes are those oncrpc4j's TCP transport would put on the wire, in the same order: the buffer, then the
 * file chunk's data, then its XDR padding. A file chunk is oncrpc4j's mark for bulk data
 * ({@code Xdr#xdrEncodeFileChunk}, which writes the length word and keeps the file region aside), so when it is what
 * it means to be, the opaque that ends the reply (the buffer's last word is its length), it is written with
 * {@link XdrEncoder#putEligibleOpaque}: DDP-eligible, so the server RDMA-writes it into the client's Write chunk when
 * one was offered (RFC 8166 section 3.4.6, "Write chunks", and section 3.4.5.2 for the roundup that then stays out of
 * the reduced stream), and keeps it inline or in the Reply chunk otherwise. A service that encoded more after the file
 * chunk's length word gets exactly what TCP would send, all of it in the stream, nothing placed.
 */
final class ReplyEncoding {
    /** Copy pieces of a composite buffer: a multiple of 4 bytes, so that only the last piece may need XDR padding. */
    private static final int STAGE = 16 << 10;

    private ReplyEncoding() {}

    /**
     * Encodes a reply at {@code out}'s position and releases its file chunk, if any, whatever happens.
     *
     * @param head the reply's bytes, from the buffer's position to its limit (oncrpc4j's encoded Xdr)
     * @param file the file chunk oncrpc4j would send after them, or null
     * @param out the server's encoder for this reply
     * @param memory where a file chunk is read to
     * @return the reply's size in the full XDR stream
     * @throws FileChunkMemory.Refused if a file chunk could not have memory (nothing was written to {@code out})
     * @throws IOException if a file chunk could not be read (nothing was written to {@code out})
     */
    static long encode(Buffer head, FileChunk file, XdrEncoder out, FileChunkMemory memory)
            throws FileChunkMemory.Refused, IOException {
        long start = out.streamPosition();
        try {
            if (file == null) {
                copy(head, head.remaining(), out);
                return out.streamPosition() - start;
            }
            int length = file.remaining();
            boolean endsTheReply =
                    head.remaining() >= Integer.BYTES && head.getInt(head.limit() - Integer.BYTES) == length;
            MemorySegment data = memory.take(length);
            readFully(file, data);
            if (endsTheReply) {
                copy(head, head.remaining() - Integer.BYTES, out);
                out.putEligibleOpaque(data, Integer.MAX_VALUE); // the length word again, then the data
            } else {
                copy(head, head.remaining(), out);
                out.putFixedOpaque(data, length); // with its padding, as oncrpc4j sends it after the file chunk
            }
            return out.streamPosition() - start;
        } finally {
            if (file != null) {
                file.release();
            }
        }
    }

    /** Copies {@code count} bytes from {@code head}'s position into {@code out}. */
    private static void copy(Buffer head, int count, XdrEncoder out) {
        if (count == 0) {
            return;
        }
        if (head.hasArray()) {
            // a plain heap buffer (the common case: no shallow buffers in the reply): straight from its array
            MemorySegment bytes =
                    MemorySegment.ofArray(head.array()).asSlice(head.arrayOffset() + head.position(), count);
            out.putFixedOpaque(bytes, count);
            head.position(head.position() + count);
            return;
        }
        byte[] stage = new byte[Math.min(count, STAGE)];
        MemorySegment staged = MemorySegment.ofArray(stage);
        for (int left = count; left > 0; ) {
            int n = Math.min(left, stage.length);
            head.get(stage, 0, n);
            out.putFixedOpaque(staged.asSlice(0, n), n);
            left -= n;
        }
    }

    /** Reads the whole file chunk into {@code data}, which is exactly as long as the chunk says it is. */
    private static void readFully(FileChunk file, MemorySegment data) throws IOException {
        SegmentChannel sink = new SegmentChannel(data);
        while (file.hasRemaining()) {
            if (file.writeTo(sink) <= 0) {
                throw new IOException("file chunk ended after " + sink.written + " of " + data.byteSize()
                        + " bytes (the file is shorter than the chunk)");
            }
        }
        if (sink.written != data.byteSize()) {
            throw new IOException("file chunk gave " + sink.written + " of " + data.byteSize() + " bytes");
        }
    }

    /** A channel writing into a segment, refusing to run past its end. */
    private static final class SegmentChannel implements WritableByteChannel {
        private final MemorySegment target;
        private long written;
        private boolean open = true;

        SegmentChannel(MemorySegment target) {
            this.target = target;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            int n = src.remaining();
            if (written + n > target.byteSize()) {
                throw new IOException("file chunk gives more than the " + target.byteSize() + " bytes it declared");
            }
            MemorySegment.copy(MemorySegment.ofBuffer(src), 0, target, written, n);
            src.position(src.limit());
            written += n;
            return n;
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }
    }
}
