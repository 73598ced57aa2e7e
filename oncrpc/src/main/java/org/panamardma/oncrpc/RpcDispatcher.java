package org.panamardma.oncrpc;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncodable;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;
import org.panamardma.xdr.XdrReader;

/**
 * Server-side dispatch of decoded calls to registered procedures, independent of any transport: a TCP transport
 * and an RDMA transport both hand it a call header, a decoder standing at the arguments, and an encoder to write
 * the whole reply into.
 *
 * <p>Answers, in the order RFC 5531 section 9 implies:
 * <ol>
 *   <li>RPC version other than 2: MSG_DENIED / RPC_MISMATCH (2, 2);
 *   <li>credential refused by the {@link RpcAuthenticator}: MSG_DENIED / AUTH_ERROR with its reason;
 *   <li>unknown program: PROG_UNAVAIL;
 *   <li>program without that version: PROG_MISMATCH with the lowest and highest versions registered;
 *   <li>version without that procedure: PROC_UNAVAIL;
 *   <li>arguments that do not decode ({@link XdrException}): GARBAGE_ARGS;
 *   <li>procedure that throws, or results that do not encode: SYSTEM_ERR;
 *   <li>otherwise SUCCESS and the results.
 * </ol>
 * Replies carry an AUTH_NONE verifier. Immutable once built, so one dispatcher serves any number of threads.
 */
public final class RpcDispatcher implements RpcService {
    private record Registered<A>(XdrReader<? extends A> arguments, RpcProcedure<? super A> body) {}

    /** The versions of one program, sorted unsigned so that the first and last are PROG_MISMATCH's low and high. */
    private record Program(TreeMap<Integer, Map<Integer, Registered<?>>> versions) {
        int lowest() {
            return versions.firstKey();
        }

        int highest() {
            return versions.lastKey();
        }
    }

    private final Map<Integer, Program> programs;
    private final RpcAuthenticator authenticator;

    private RpcDispatcher(Map<Integer, Program> programs, RpcAuthenticator authenticator) {
        this.programs = programs;
        this.authenticator = authenticator;
    }

    /** {@return a builder with the {@link RpcAuthenticator#noneOrSys()} authenticator} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Runs {@code call} and writes its complete reply (header, then results on SUCCESS) at {@code out}'s position.
     *
     * @param call the decoded call header
     * @param arguments a decoder standing at the call's arguments
     * @param out where the reply goes; on failure after a partial SUCCESS encoding it is rewound to where the
     *            reply started and the error reply written instead
     * @return the reply header written
     * @throws XdrException if even the error reply does not fit {@code out}
     */
    public RpcReply dispatch(RpcCall call, XdrDecoder arguments, XdrEncoder out) {
        Objects.requireNonNull(arguments, "arguments");
        XdrEncoder.Mark start = out.mark();
        RpcReply error = decide(call, arguments, out, start);
        if (error == null) {
            return AcceptedReply.success(call.xid(), OpaqueAuth.NONE); // written with its results by run()
        }
        RpcMessageCodec.encode(error, out);
        return error;
    }

    /** Runs the call as {@link #dispatch} does: the transports serve a dispatcher through this. */
    @Override
    public void serve(Incoming call, XdrEncoder out) {
        dispatch(call.header(), call.arguments(), out);
    }

    /** {@return the error reply to write, or {@code null} if a SUCCESS reply with results has been written} */
    private RpcReply decide(RpcCall call, XdrDecoder arguments, XdrEncoder out, XdrEncoder.Mark start) {
        int xid = call.xid();
        if (call.rpcVersion() != RpcMessage.RPC_VERSION) {
            return RejectedReply.rpcMismatch(xid, RpcMessage.RPC_VERSION, RpcMessage.RPC_VERSION);
        }
        AuthStat auth = authenticator.check(call);
        if (auth != AuthStat.AUTH_OK) {
            return RejectedReply.authError(xid, auth);
        }
        Program program = programs.get(call.program());
        if (program == null) {
            return AcceptedReply.failure(xid, OpaqueAuth.NONE, AcceptStat.PROG_UNAVAIL);
        }
        Map<Integer, Registered<?>> procedures = program.versions().get(call.version());
        if (procedures == null) {
            return AcceptedReply.progMismatch(xid, OpaqueAuth.NONE, program.lowest(), program.highest());
        }
        Registered<?> procedure = procedures.get(call.procedure());
        if (procedure == null) {
            return AcceptedReply.failure(xid, OpaqueAuth.NONE, AcceptStat.PROC_UNAVAIL);
        }
        return run(procedure, call, arguments, out, start);
    }

    private static <A> RpcReply run(
            Registered<A> procedure, RpcCall call, XdrDecoder arguments, XdrEncoder out, XdrEncoder.Mark start) {
        A decoded;
        try {
            decoded = procedure.arguments().read(arguments);
        } catch (XdrException garbage) {
            return AcceptedReply.failure(call.xid(), OpaqueAuth.NONE, AcceptStat.GARBAGE_ARGS);
        }
        XdrEncodable results;
        try {
            results = Objects.requireNonNull(procedure.body().call(decoded, call), "procedure returned null results");
        } catch (Exception failed) {
            if (failed instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return AcceptedReply.failure(call.xid(), OpaqueAuth.NONE, AcceptStat.SYSTEM_ERR);
        }
        try {
            RpcMessageCodec.encode(AcceptedReply.success(call.xid(), OpaqueAuth.NONE), out);
            results.encodeTo(out);
            return null;
        } catch (RuntimeException encodingFailed) {
            // Results too large for the reply buffer or breaking their own limits: the caller must not see half a
            // SUCCESS reply, so rewind (which also withdraws any data placed out of band) and report SYSTEM_ERR.
            out.reset(start);
            return AcceptedReply.failure(call.xid(), OpaqueAuth.NONE, AcceptStat.SYSTEM_ERR);
        }
    }

    /** Collects procedures; not thread-safe, used before the dispatcher is built. */
    public static final class Builder {
        private final Map<Integer, TreeMap<Integer, Map<Integer, Registered<?>>>> programs = new HashMap<>();
        private RpcAuthenticator authenticator = RpcAuthenticator.noneOrSys();

        private Builder() {}

        /**
         * Registers a procedure.
         *
         * @param <A> the decoded argument type
         * @param program the program number
         * @param version the program version
         * @param procedure the procedure number
         * @param arguments decodes the arguments; an {@link XdrException} from it is answered with GARBAGE_ARGS
         * @param body runs the procedure
         * @return this builder
         * @throws IllegalStateException if that (program, version, procedure) is already registered
         */
        public <A> Builder register(
                int program,
                int version,
                int procedure,
                XdrReader<? extends A> arguments,
                RpcProcedure<? super A> body) {
            Registered<A> entry = new Registered<>(
                    Objects.requireNonNull(arguments, "arguments"), Objects.requireNonNull(body, "body"));
            Map<Integer, Registered<?>> procedures = programs.computeIfAbsent(
                            program, p -> new TreeMap<>(Integer::compareUnsigned))
                    .computeIfAbsent(version, v -> new HashMap<>());
            if (procedures.putIfAbsent(procedure, entry) != null) {
                throw new IllegalStateException("procedure " + Integer.toUnsignedString(program) + "."
                        + Integer.toUnsignedString(version) + "." + Integer.toUnsignedString(procedure)
                        + " is already registered");
            }
            return this;
        }

        /**
         * Replaces the default {@link RpcAuthenticator#noneOrSys()} credential check.
         *
         * @param authenticator checks every call's credential before dispatch; must be thread-safe when the dispatcher
         *        serves several connections
         * @return this builder
         */
        public Builder authenticator(RpcAuthenticator authenticator) {
            this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
            return this;
        }

        /** {@return an immutable dispatcher holding what was registered so far} */
        public RpcDispatcher build() {
            Map<Integer, Program> frozen = new HashMap<>();
            programs.forEach((number, versions) -> {
                TreeMap<Integer, Map<Integer, Registered<?>>> copy = new TreeMap<>(Integer::compareUnsigned);
                versions.forEach((version, procedures) -> copy.put(version, Map.copyOf(procedures)));
                frozen.put(number, new Program(copy));
            });
            return new RpcDispatcher(Map.copyOf(frozen), authenticator);
        }
    }
}
