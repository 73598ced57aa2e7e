package org.panamardma.benchmarks;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.OncRpcProgram;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrDecodingStream;
import org.dcache.oncrpc4j.xdr.XdrEncodingStream;
import org.dcache.oncrpc4j.xdr.XdrVoid;

/**
 * The oncrpc4j service {@link BridgeBench} measures, written as oncrpc4j users write services (a
 * {@link RpcDispatchable} that decodes with {@code call.retrieveCall} and answers with {@code call.reply}), knowing
 * nothing of RDMA:
 * <pre>
 *   program BLOB { version BLOB_V1 {
 *     void         NULL(void)          = 0;
 *     opaque&lt;&gt;     GET(unsigned size)  = 1;   size bytes of the pattern (byte i = i mod 251)
 *     put_res      PUT(opaque&lt;&gt;)       = 2;   struct put_res { unsigned length; int sample; }
 *   } = 1; } = 0x20000180;
 * </pre>
 * PUT's {@code sample} is {@link #sample} of the bytes it received, so that a client sees that the right bytes
 * arrived without the reply carrying them back. It lives in main code (not in oncrpc4j-rdma's tests, whose demo
 * program reads files) because the benchmarks jar must carry it into the testbed.
 */
public final class BlobService implements RpcDispatchable {
    /** In the range RFC 5531 section 8.3 leaves to users; one above the README example's echo program. */
    public static final int PROGRAM = 0x2000_0180;

    public static final int VERSION = 1;
    public static final OncRpcProgram ONC_PROGRAM = new OncRpcProgram(PROGRAM, VERSION);
    public static final int NULL = 0;
    public static final int GET = 1;
    public static final int PUT = 2;
    /** The largest GET or PUT: the RPC-over-RDMA server's default largest message is 16 MiB. */
    public static final int MAX_SIZE = 8 << 20;

    private static final int PATTERN_MODULUS = 251;
    /** The bytes {@link #sample} reads: a prime stride, so every page at varying offsets. */
    private static final int SAMPLE_STRIDE = 4093;

    /** GET's answers by size, made once: the service allocates no payload per call (oncrpc4j encodes it as is). */
    private final Map<Integer, byte[]> patterns = new ConcurrentHashMap<>();
    /** Calls answered, over any transport: both servers run this one instance. */
    public final AtomicLong calls = new AtomicLong();

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        calls.incrementAndGet();
        switch (call.getProcedure()) {
            case NULL -> call.reply(XdrVoid.XDR_VOID);
            case GET -> {
                Size size = new Size();
                call.retrieveCall(size);
                if (size.value < 0 || size.value > MAX_SIZE) {
                    call.failRpcGarbage();
                    return;
                }
                call.reply(new Opaque(patterns.computeIfAbsent(size.value, BlobService::pattern)));
            }
            case PUT -> {
                Opaque data = new Opaque();
                call.retrieveCall(data);
                call.reply(new PutResult(data.bytes.length, sample(data.bytes)));
            }
            default -> call.failProcedureUnavailable();
        }
    }

    /** {@code size} bytes of the pattern: byte i is {@code i mod 251}. */
    public static byte[] pattern(int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (i % PATTERN_MODULUS);
        }
        return b;
    }

    /** Whether {@code b} holds the pattern, looked at every {@value #SAMPLE_STRIDE} bytes and at the last one. */
    public static boolean isPattern(byte[] b) {
        for (int i = 0; i < b.length; i += SAMPLE_STRIDE) {
            if (b[i] != (byte) (i % PATTERN_MODULUS)) {
                return false;
            }
        }
        return b.length == 0 || b[b.length - 1] == (byte) ((b.length - 1) % PATTERN_MODULUS);
    }

    /** A digest of every {@value #SAMPLE_STRIDE}th byte and the last one: cheap, and wrong when bytes are. */
    public static int sample(byte[] b) {
        int h = b.length;
        for (int i = 0; i < b.length; i += SAMPLE_STRIDE) {
            h = 31 * h + b[i];
        }
        return b.length == 0 ? h : 31 * h + b[b.length - 1];
    }

    /** GET's argument: an XDR unsigned int. */
    public static final class Size implements XdrAble {
        public int value;

        public Size() {}

        public Size(int value) {
            this.value = value;
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
            value = xdr.xdrDecodeInt();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeInt(value);
        }
    }

    /** An XDR {@code opaque<>}: GET's result, PUT's argument. */
    public static final class Opaque implements XdrAble {
        public byte[] bytes = new byte[0];

        public Opaque() {}

        public Opaque(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
            bytes = xdr.xdrDecodeDynamicOpaque();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeDynamicOpaque(bytes);
        }
    }

    /** PUT's result: the length received and {@link #sample} of the bytes. */
    public static final class PutResult implements XdrAble {
        public int length;
        public int sample;

        public PutResult() {}

        PutResult(int length, int sample) {
            this.length = length;
            this.sample = sample;
        }

        @Override
        public void xdrDecode(XdrDecodingStream xdr) throws OncRpcException, IOException {
            length = xdr.xdrDecodeInt();
            sample = xdr.xdrDecodeInt();
        }

        @Override
        public void xdrEncode(XdrEncodingStream xdr) throws OncRpcException, IOException {
            xdr.xdrEncodeInt(length);
            xdr.xdrEncodeInt(sample);
        }
    }
}
