package org.panamardma.oncrpc.tcp;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.panamardma.oncrpc.RecordMarking;
import org.panamardma.xdr.DataPlacement;
import org.panamardma.xdr.Xdr;
import org.panamardma.xdr.XdrEncoder;

/**
 * One message being written as a record: the inline part is encoded into a buffer after room for the fragment
 * header, and large items marked eligible for direct placement ({@code putEligibleOpaque}) are not copied into it
 * but written from their own memory between the inline pieces (a gather write), so bulk payloads need neither a
 * buffer of their size nor a copy. The record goes out as a single fragment (RFC 5531 section 11).
 *
 * <p>Eligible data must stay valid until {@link #writeTo} returns. Not thread-safe.
 */
final class OutgoingRecord implements DataPlacement {
    /** Eligible items smaller than this are copied inline: not worth a separate write. */
    static final long GATHER_THRESHOLD = 8192;

    private static final byte[] ZEROS = new byte[Xdr.UNIT];

    private record Piece(long streamPosition, MemorySegment data) {}

    private final byte[] buffer;
    private final XdrEncoder encoder;
    private final List<Piece> pieces = new ArrayList<>(0);

    OutgoingRecord(byte[] buffer) {
        this.buffer = buffer;
        this.encoder = new XdrEncoder(MemorySegment.ofArray(buffer), RecordMarking.HEADER_SIZE, this);
    }

    /** {@return the encoder for the message, standing after the room for the record header} */
    XdrEncoder encoder() {
        return encoder;
    }

    @Override
    public boolean placeDirectly(long streamPosition, MemorySegment data) {
        if (data.byteSize() < GATHER_THRESHOLD) {
            return false;
        }
        pieces.add(new Piece(streamPosition, data));
        return true;
    }

    @Override
    public void discardFrom(long streamPosition) {
        pieces.removeIf(p -> p.streamPosition() >= streamPosition);
    }

    /** {@return the message length: inline bytes plus the gathered items and their padding} */
    long messageLength() {
        return encoder.streamPosition() - RecordMarking.HEADER_SIZE;
    }

    /**
     * Writes the record marker and the message to {@code out} (not flushed).
     *
     * @throws IOException if the stream fails, or the message is longer than one fragment can carry
     */
    void writeTo(OutputStream out) throws IOException {
        long length = messageLength();
        if (length > RecordMarking.MAX_FRAGMENT_LENGTH) {
            throw new IOException("message of " + length + " bytes exceeds the largest record fragment");
        }
        int header = RecordMarking.header(true, (int) length);
        buffer[0] = (byte) (header >>> 24);
        buffer[1] = (byte) (header >>> 16);
        buffer[2] = (byte) (header >>> 8);
        buffer[3] = (byte) header;
        int inlineFrom = 0;
        long elided = 0;
        for (Piece piece : pieces) {
            int inlineTo = (int) (piece.streamPosition() - elided);
            out.write(buffer, inlineFrom, inlineTo - inlineFrom);
            write(out, piece.data());
            out.write(ZEROS, 0, Xdr.padding(piece.data().byteSize()));
            elided += Xdr.roundUp(piece.data().byteSize());
            inlineFrom = inlineTo;
        }
        out.write(buffer, inlineFrom, (int) encoder.position() - inlineFrom);
    }

    private static void write(OutputStream out, MemorySegment data) throws IOException {
        if (data.heapBase().orElse(null) instanceof byte[] array) {
            out.write(array, (int) data.address(), (int) data.byteSize());
            return;
        }
        byte[] chunk = new byte[(int) Math.min(data.byteSize(), 64 * 1024)];
        for (long at = 0; at < data.byteSize(); at += chunk.length) {
            int n = (int) Math.min(chunk.length, data.byteSize() - at);
            MemorySegment.copy(data, ValueLayout.JAVA_BYTE, at, chunk, 0, n);
            out.write(chunk, 0, n);
        }
    }
}
