package org.panamardma.oncrpc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import org.panamardma.testing.AllocationBudget;
import org.panamardma.xdr.XdrDecoder;
import org.panamardma.xdr.XdrEncoder;
import org.panamardma.xdr.XdrException;

/**
 * Fuzzes the ONC RPC message header decoder and the authentication bodies it carries (FUZZING.md): the input is
 * decoded as an {@code rpc_msg} (RFC 5531 section 9), whose AUTH_SYS credential is then parsed as a server does
 * ({@link AuthSysParms#from}); and, independently, as a bare {@code opaque_auth} followed by nothing. The typed
 * refusal is {@link XdrException}; anything else is a finding. What decodes must re-encode to the bytes read (XDR
 * is canonical and the decoder requires zero padding).
 */
class RpcMessageFuzzTest {
    /**
     * A header holds at most two opaque_auth bodies of 400 bytes (RFC 5531 section 8.2), each copied once into the
     * record and once more by its accessor, and an AUTH_SYS body at most a 255-byte name (decoded through a char
     * buffer) and 16 boxed gids: a few KiB whatever the input, plus the re-encode (as long as what was read) and the
     * refusal's exception. The bound allows 16 KiB + 8 per input byte on top of the exception's 48 KiB.
     */
    private static long bound(int inputLength) {
        return (64 << 10) + 8L * inputLength;
    }

    @FuzzTest
    void decode(byte[] data) throws Exception {
        AllocationBudget.within("RpcMessageCodec.decode", bound(data.length), () -> {
            rpcMessage(data);
            opaqueAuth(data);
        });
    }

    private static void rpcMessage(byte[] data) {
        XdrDecoder in = new XdrDecoder(MemorySegment.ofArray(data));
        RpcMessage message;
        try {
            message = RpcMessageCodec.decode(in);
        } catch (XdrException refused) {
            return;
        }
        int read = (int) in.position();
        assertEquals(read, RpcMessageCodec.size(message), "bytes read vs encoded size");
        byte[] again = new byte[RpcMessageCodec.size(message)];
        RpcMessageCodec.encode(message, new XdrEncoder(MemorySegment.ofArray(again)));
        assertArrayEquals(Arrays.copyOf(data, read), again, "re-encoded rpc_msg differs from the input");
        if (message instanceof RpcCall call) {
            authSys(call.credential());
            authSys(call.verifier());
        }
    }

    private static void opaqueAuth(byte[] data) {
        XdrDecoder in = new XdrDecoder(MemorySegment.ofArray(data));
        OpaqueAuth auth;
        try {
            auth = OpaqueAuth.decode(in);
        } catch (XdrException refused) {
            return;
        }
        assertTrue(auth.body().length <= OpaqueAuth.MAX_BODY);
        assertEquals(in.position(), auth.xdrSize());
        authSys(new OpaqueAuth(AuthFlavor.AUTH_SYS, auth.body()));
    }

    private static void authSys(OpaqueAuth credential) {
        AuthSysParms parms;
        try {
            parms = AuthSysParms.from(credential);
        } catch (XdrException refused) {
            return;
        }
        assertTrue(parms.gids().size() <= AuthSysParms.MAX_GIDS);
        OpaqueAuth again = parms.toOpaqueAuth();
        assertArrayEquals(credential.body(), again.body(), "re-encoded authsys_parms differs from the input");
    }
}
