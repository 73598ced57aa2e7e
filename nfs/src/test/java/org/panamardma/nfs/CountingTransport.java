package org.panamardma.nfs;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.panamardma.nfs.rpc.ReplyReader;
import org.panamardma.nfs.rpc.RpcTransport;
import org.panamardma.oncrpc.OpaqueAuth;
import org.panamardma.xdr.XdrEncodable;

/** Passes calls to another transport, recording each call's procedure number before it goes; closes nothing. */
final class CountingTransport implements RpcTransport {
    private final RpcTransport delegate;
    final List<Integer> procedures = new CopyOnWriteArrayList<>();

    CountingTransport(RpcTransport delegate) {
        this.delegate = delegate;
    }

    @Override
    public <T> T call(
            int program,
            int version,
            int procedure,
            OpaqueAuth credential,
            XdrEncodable arguments,
            ReplyReader<T> results,
            Duration timeout)
            throws IOException, InterruptedException {
        procedures.add(procedure);
        return delegate.call(program, version, procedure, credential, arguments, results, timeout);
    }

    @Override
    public String peer() {
        return delegate.peer();
    }

    @Override
    public void close() {}
}
