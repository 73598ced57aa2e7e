package org.panamardma.oncrpc4j.demo;

import java.io.IOException;
import org.dcache.oncrpc4j.rpc.OncRpcException;
import org.dcache.oncrpc4j.rpc.RpcCall;
import org.dcache.oncrpc4j.rpc.RpcDispatchable;
import org.dcache.oncrpc4j.xdr.XdrLong;
import org.dcache.oncrpc4j.xdr.XdrVoid;

/**
 * The server stub of the demo program in the shape jrpcgen gives oncrpc4j services: decode the arguments
 * ({@code call.retrieveCall}), call the typed procedure, reply ({@code call.reply}); a procedure the version lacks is
 * PROC_UNAVAIL. Nothing in it knows which transport the call came on.
 */
public abstract class DemoServerStub implements RpcDispatchable, Demo {

    @Override
    public void dispatchOncRpcCall(RpcCall call) throws OncRpcException, IOException {
        int version = call.getProgramVersion();
        int procedure = call.getProcedure();
        if (version != DEMO_V1) {
            call.failProgramUnavailable();
            return;
        }
        switch (procedure) {
            case NULL_1 -> {
                call.retrieveCall(XdrVoid.XDR_VOID);
                call.reply(XdrVoid.XDR_VOID);
            }
            case ECHO_1 -> {
                Blob args = new Blob();
                call.retrieveCall(args);
                call.reply(echo(call, args));
            }
            case ADD_1 -> {
                AddArgs args = new AddArgs();
                call.retrieveCall(args);
                call.reply(new XdrLong(add(call, args)));
            }
            case READ_1 -> {
                ReadArgs args = new ReadArgs();
                call.retrieveCall(args);
                call.reply(read(call, args));
            }
            case LIST_1 -> {
                ListArgs args = new ListArgs();
                call.retrieveCall(args);
                call.reply(list(call, args));
            }
            case FAIL_1 -> {
                FailArgs args = new FailArgs();
                call.retrieveCall(args);
                fail(call, args);
                call.reply(XdrVoid.XDR_VOID);
            }
            case ECHO_LATER_1 -> {
                Blob args = new Blob();
                call.retrieveCall(args);
                echoLater(call, args); // replies itself, later
            }
            case SILENT_1 -> call.retrieveCall(XdrVoid.XDR_VOID);
            default -> call.failProcedureUnavailable();
        }
    }

    public abstract Blob echo(RpcCall call, Blob args);

    public abstract long add(RpcCall call, AddArgs args);

    public abstract ReadRes read(RpcCall call, ReadArgs args) throws IOException;

    public abstract ListRes list(RpcCall call, ListArgs args);

    public abstract void fail(RpcCall call, FailArgs args) throws OncRpcException, IOException;

    /** Must reply with {@code call.reply}, from any thread, at any time. */
    public abstract void echoLater(RpcCall call, Blob args);
}
