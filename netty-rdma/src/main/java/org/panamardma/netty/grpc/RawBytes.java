package org.panamardma.netty.grpc;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * gRPC methods whose messages are byte arrays, passed through as they are: for services whose payloads their callers
 * serialize themselves, and for measuring the transport without a serialization library. (A protobuf service uses
 * its generated descriptors instead; nothing here is needed for it.)
 */
public final class RawBytes {
    /** The marshaller of {@code byte[]} messages: the message is the bytes. */
    public static final MethodDescriptor.Marshaller<byte[]> MARSHALLER = new Marshaller();

    private RawBytes() {}

    /**
     * A method of {@code service} whose requests and responses are byte arrays.
     *
     * @param service the service's full name ("package.Service")
     * @param method the method's name in it
     * @param type unary or which streaming
     * @return the method's descriptor, for {@code ServerServiceDefinition.builder(service).addMethod} and calls
     */
    public static MethodDescriptor<byte[], byte[]> method(
            String service, String method, MethodDescriptor.MethodType type) {
        return MethodDescriptor.<byte[], byte[]>newBuilder()
                .setType(type)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(service, method))
                .setRequestMarshaller(MARSHALLER)
                .setResponseMarshaller(MARSHALLER)
                .build();
    }

    private static final class Marshaller implements MethodDescriptor.Marshaller<byte[]> {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                // gRPC turns a parse failure into the call's INTERNAL status
                throw new UncheckedIOException(e);
            }
        }
    }
}
