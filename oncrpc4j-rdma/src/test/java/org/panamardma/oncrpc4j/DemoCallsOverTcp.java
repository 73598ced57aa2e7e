package org.panamardma.oncrpc4j;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.oncrpc.RpcClient;
import org.panamardma.oncrpc.tcp.RpcReplyException;
import org.panamardma.oncrpc.tcp.TcpRpcClient;
import org.panamardma.oncrpc4j.DemoCases.Case;
import org.panamardma.oncrpc4j.demo.Demo;
import org.panamardma.xdr.XdrDecoder;

/**
 * One demo case called with this project's clients, its outcome as the bridge tests compare it: the raw result
 * bytes (so no decoder of ours stands between the two servers), or the reply header of a failed call.
 */
final class DemoCallsOverTcp {
    private DemoCallsOverTcp() {}

    /** Over this project's TCP client. */
    static Object overTcp(TcpRpcClient c, Case k, Duration timeout) throws Exception {
        byte[] args = HostBridge.xdr(k.args());
        try {
            return c.call(
                            Demo.DEMO,
                            k.version(),
                            k.procedure(),
                            OpaqueAuth.NONE,
                            out -> out.putFixedOpaque(args),
                            DemoCallsOverTcp::rawResults,
                            timeout)
                    .get(timeout.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return assertInstanceOf(RpcReplyException.class, e.getCause(), k.name())
                    .reply();
        }
    }

    /** Through the {@link RpcClient} interface ({@code rdma://} or {@code tcp://}). */
    static Object overInterface(RpcClient c, Case k, Duration timeout) throws Exception {
        byte[] args = HostBridge.xdr(k.args());
        try {
            return c.invoke(
                    Demo.DEMO,
                    k.version(),
                    k.procedure(),
                    OpaqueAuth.NONE,
                    out -> out.putFixedOpaque(args),
                    DemoCallsOverTcp::rawResults,
                    timeout);
        } catch (RpcReplyException e) {
            return e.reply();
        }
    }

    /** The results as bytes, all of them consumed (the client checks that a reader read the whole reply). */
    private static byte[] rawResults(XdrDecoder in) {
        byte[] b = in.rest().toArray(JAVA_BYTE);
        in.skip(b.length, "results");
        return b;
    }
}
