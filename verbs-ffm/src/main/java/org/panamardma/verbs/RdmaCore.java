package org.panamardma.verbs;

import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.Optional;
import org.panamardma.verbs.ffi.Native;
import org.panamardma.verbs.ffi.ibv_port_attr;
import org.panamardma.verbs.ffi.ibv_qp_ex;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The installed rdma-core: which release of libibverbs and librdmacm this process loaded, found out once, and which
 * of the bindings' {@link Feature features} that release has.
 *
 * <p>The bindings follow rdma-core {@value #BINDINGS_RELEASE}'s headers; the oldest release supported is
 * {@value #OLDEST_SUPPORTED} (Debian 12's). Between the two, structs grew: {@code struct ibv_qp_ex} has
 * {@code wr_flush} only from 45 on (352 bytes in 44, 360 in 56), {@code struct ibv_port_attr}
 * {@code active_speed_ex} from 49 on (52 and 56 bytes). The library never reads a member the installed release
 * lacks: the views it reads such structs through end where the installed release's struct ends, and a feature the
 * installed release lacks is refused by {@link Feature#require()} with an {@link UnsupportedOperationException}
 * naming the feature, the release that brings it and the installed one, before any native call.
 *
 * <p>A library older than {@value #OLDEST_SUPPORTED}, or missing, is refused by the first entries into the library
 * ({@link Device#list()}, {@link Context#open(String)}, {@code EventChannel.create()}) with an
 * {@link RdmaLibraryException} that says so (and names the package to install).
 *
 * <p>How the release is found: from the loaded file's name, which rdma-core's build makes
 * {@code libibverbs.so.1.<ABI>.<release>} (e.g. {@code libibverbs.so.1.14.44.0}), cross-checked with the symbol
 * versions the library exports (dlvsym). Where the file name does not tell (a library copied as plain
 * {@code libibverbs.so.1}) or contradicts the symbol versions, the release is the lower bound the symbol versions
 * prove, {@linkplain Version#exact() inexact}, and a WARNING is logged: such a library is used, with every feature of
 * a later release refused. Details: RdmaCoreDetection.
 *
 * <p><b>Testing an application as on an older rdma-core:</b> the system property {@value #ASSUME_PROPERTY} (read
 * once, e.g. {@code -Dpanama.rdma.assumeRdmaCore=44}) makes the library take the installed rdma-core as that release.
 * It can only lower the release (claiming a newer one than installed could make the library read struct members the
 * installed library does not have, so that is ignored with a WARNING); below {@value #OLDEST_SUPPORTED} the library
 * is refused like a really old one.
 */
public final class RdmaCore {
    private RdmaCore() {}

    private static final Logger LOG = LoggerFactory.getLogger(RdmaCore.class);

    /** The oldest rdma-core release supported: Debian 12's. */
    public static final int OLDEST_SUPPORTED = 44;

    /** The rdma-core release whose headers the bindings follow (Debian 13's). */
    public static final int BINDINGS_RELEASE = 56;

    /** The system property that makes the library take the installed rdma-core as an older release (see above). */
    public static final String ASSUME_PROPERTY = "panama.rdma.assumeRdmaCore";

    /**
     * An rdma-core release, e.g. 44.0. An inexact one is a lower bound ("at least 37"): the release of a library whose
     * file name does not tell, as far as its symbol versions prove it.
     *
     * @param major the release number, e.g. 44
     * @param minor the point release, e.g. 0
     * @param exact whether the release is known, or only a lower bound proved by symbol versions
     */
    public record Version(int major, int minor, boolean exact) {
        /**
         * Whether this is release {@code release} or later; for an inexact version, whether that is proved.
         *
         * @param release an rdma-core major release
         * @return whether this version is that release or a later one
         */
        public boolean atLeast(int release) {
            return major >= release;
        }

        @Override
        public String toString() {
            return exact ? major + "." + minor : "of unknown release, at least " + major + " by its symbol versions";
        }
    }

    /**
     * What the bindings use that not every supported rdma-core has. {@link #isAvailable()} says whether the installed
     * libibverbs has it; whether a device can do it is another question ({@link DeviceAttributes}, and for a queue
     * pair {@link QueuePair#supportsFlush() QueuePair.supportsFlush()}), asked after this one.
     */
    public enum Feature {
        /**
         * RDMA ATOMIC WRITE ({@code ibv_wr_atomic_write}, {@code ibv_qp_ex.wr_atomic_write},
         * {@code IBV_QP_EX_WITH_ATOMIC_WRITE}): rdma-core 44 (commit 236206d3f "providers/rxe: Introduce
         * ibv_wr_atomic_write()", first in v44.0). Every supported release has it; it is refused only for a library
         * whose release is unknown and not proved to be 44 or later.
         */
        ATOMIC_WRITE(44, "RDMA ATOMIC WRITE", "ibv_wr_atomic_write"),
        /**
         * RDMA FLUSH ({@code ibv_wr_flush}, {@code ibv_qp_ex.wr_flush}, {@code IBV_QP_EX_WITH_FLUSH}): rdma-core 45
         * (commit 20a37f32c "providers/rxe: Add new API ibv_wr_flush()", first in v45.0). rdma-core 44's
         * {@code struct ibv_qp_ex} ends before {@code wr_flush}, and its rxe provider refuses
         * {@code IBV_QP_EX_WITH_FLUSH}. The memory region and queue pair access flags {@code IBV_ACCESS_FLUSH_*}
         * (named in verbs.h from 45 on, commit c86028c67, a header-only change) are not gated: 44's
         * {@code ibv_reg_mr} and {@code ibv_modify_qp} hand them to the kernel, which accepts them where the device
         * can FLUSH, so a peer with a newer rdma-core can FLUSH into this process's memory.
         */
        FLUSH(45, "RDMA FLUSH", "ibv_wr_flush");

        private final int since;
        private final String description;
        private final String verb;

        Feature(int since, String description, String verb) {
            this.since = since;
            this.description = description;
            this.verb = verb;
        }

        /** {@return the rdma-core release that brought it} */
        public int since() {
            return since;
        }

        /** {@return what it is, e.g. {@code RDMA FLUSH}} */
        public String description() {
            return description;
        }

        /** {@return whether the installed libibverbs has it (its release is {@link #since()} or later)} */
        public boolean isAvailable() {
            Version v = effective(ibverbs());
            return v != null && ibverbs().refusal().isEmpty() && v.atLeast(since);
        }

        /**
         * Returns if the installed libibverbs has this feature, else throws an {@link UnsupportedOperationException}
         * like "RDMA FLUSH needs rdma-core 45 or later (ibv_wr_flush); the installed libibverbs is rdma-core 44.0".
         * Makes no native call.
         */
        public void require() {
            if (!isAvailable()) {
                throw new UnsupportedOperationException(description + " needs rdma-core " + since + " or later (" + verb
                        + "); the installed libibverbs is " + installed(ibverbs()));
            }
        }
    }

    /**
     * A provider bug of some rdma-core releases that the library works around, so that code written to the man pages
     * behaves the same on every supported release.
     */
    enum Quirk {
        /**
         * rxe's {@code ibv_next_poll} before rdma-core 55 advances the consumer index when it finds the queue empty,
         * and {@code ibv_end_poll} (which the man page says to call even then) advances it once more: the queue's
         * consumer runs one entry past its producer, and the next poll returns a stale or zeroed entry as a
         * completion (seen in the Debian 12 testbed: after a bad-rkey RDMA READ, a "successful" completion with wr_id
         * 0). Fixed by commit b78b414e0 "rxe: fix completion queue consumer index overrun", first in v55.0. The
         * workaround polls one completion per start/end batch and never calls {@code ibv_next_poll}.
         */
        RXE_END_POLL_OVERRUN(55),
        /**
         * rxe's {@code ibv_wr_set_sge_list} (the extended QP API) sums the first element's length once per element
         * ({@code while (num_sge--) tot_length += sg_list->length;}) instead of every element's: a SEND or WRITE
         * gathering elements of different lengths is posted with a wrong total, and rxe's copy runs past the list's
         * end (the request completes with {@code IBV_WC_LOC_PROT_ERR}, the queue pair goes to the error state); equal
         * lengths happen to work. Fixed by rdma-core pull request 1744 ("Providers/rxe: fix wr_set_sge_list total
         * length"), in no release yet (56 has the bug, so has 44): every release counts as affected. The workaround
         * posts lists of more than one element through {@code ibv_post_send}, whose rxe path sums correctly, on the
         * same queue pair (both hold the provider's send-queue lock; the library serializes its posts). It matters
         * only on a queue pair posting every opcode with {@code ibv_wr_*}
         * (QueuePairBuilder.workRequestsForEveryOpcode): the library's default extended queue pair posts SENDs and
         * WRITEs with {@code ibv_post_send} anyway.
         */
        RXE_WR_SET_SGE_LIST_LENGTH(Integer.MAX_VALUE);

        /** rxe's {@code vendor_id} in ibv_query_device (Linux drivers/infiniband/sw/rxe/rxe_param.h). */
        static final int RXE_VENDOR_ID = 0xFFFFFF;

        private final int fixedIn;

        Quirk(int fixedIn) {
            this.fixedIn = fixedIn;
        }

        /**
         * Whether a device opened as {@code context} has the bug with the installed libibverbs. A release lowered by
         * {@value #ASSUME_PROPERTY}, or one not known, counts as affected: the workaround is correct everywhere.
         */
        boolean affects(Context context) {
            if (context.attributes().vendorId() != RXE_VENDOR_ID) {
                return false;
            }
            Version v = effective(ibverbs());
            return v == null || !v.atLeast(fixedIn);
        }
    }

    // ------------------------------------------------------------------------------------------ the state

    private static final class Ibverbs {
        static final RdmaCoreDetection.Detected DETECTED = detectAndLog(RdmaCoreDetection.IBVERBS, Native.IBVERBS);
    }

    private static final class Rdmacm {
        static final RdmaCoreDetection.Detected DETECTED = detectAndLog(RdmaCoreDetection.RDMACM, Native.RDMACM);
    }

    /** The property's release, read once; null when unset or ignored. */
    private static final class Assumed {
        static final Integer PROPERTY = parseAssumed(System.getProperty(ASSUME_PROPERTY));
    }

    /** A lower release set by a test in this package (assumeForTest); null: none. */
    private static volatile Integer assumedForTest;

    static RdmaCoreDetection.Detected ibverbs() {
        return Ibverbs.DETECTED;
    }

    static RdmaCoreDetection.Detected rdmacm() {
        return Rdmacm.DETECTED;
    }

    private static RdmaCoreDetection.Detected detectAndLog(RdmaCoreDetection.Spec spec, Native.Library library) {
        RdmaCoreDetection.Detected d;
        try {
            d = RdmaCoreDetection.detect(spec, library);
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            // never fail a class initialiser: the refusal says why
            d = new RdmaCoreDetection.Detected(
                    spec,
                    library,
                    Optional.empty(),
                    Optional.empty(),
                    new RdmaCoreDetection.Verdict(
                            null,
                            Optional.empty(),
                            Optional.of("cannot tell which rdma-core " + "release " + spec.library() + " is: " + e)));
        }
        if (d.loaded()) {
            LOG.atDebug().log(d::describe);
            d.verdict().warning().ifPresent(w -> LOG.warn(w));
        }
        return d;
    }

    /** The release {@code -Dpanama.rdma.assumeRdmaCore} names; null (with a WARN if it is not a release) if none. */
    static Integer parseAssumed(String value) {
        if (value == null || value.isBlank()) {
            return null;
        }
        try {
            int release = Integer.parseInt(value.trim());
            if (release > 0) {
                return release;
            }
        } catch (NumberFormatException e) {
            // below
        }
        LOG.warn("-D" + ASSUME_PROPERTY + "=" + value + " ignored: not an rdma-core " + "release number such as 44");
        return null;
    }

    /** The release the library goes by: the detected one, lowered by the property or a test, never raised. */
    private static Version effective(RdmaCoreDetection.Detected d) {
        Version v = d.verdict().version();
        if (v == null) {
            return null;
        }
        Integer assumed = assumedForTest != null ? assumedForTest : Assumed.PROPERTY;
        if (assumed == null) {
            return v;
        }
        if (assumed > v.major()) {
            if (assumedForTest == null) {
                warnIgnoredOnce(d, assumed);
            }
            return v;
        }
        return new Version(assumed, 0, true);
    }

    private static volatile boolean warnedIgnored;

    private static void warnIgnoredOnce(RdmaCoreDetection.Detected d, int assumed) {
        if (!warnedIgnored) {
            warnedIgnored = true;
            LOG.warn("-D" + ASSUME_PROPERTY + "=" + assumed + " ignored for "
                    + d.spec().library() + ": it may only lower the release, and the installed one is rdma-core "
                    + d.verdict().version());
        }
    }

    /** "44.0", "56.1, taken as 44 (-Dpanama.rdma.assumeRdmaCore=44)", or why there is none. */
    private static String installed(RdmaCoreDetection.Detected d) {
        if (!d.loaded()) {
            return "not loadable (" + d.library().failure().orElse("?") + ")";
        }
        Version detected = d.verdict().version();
        Version v = effective(d);
        if (v == null) {
            return "of unknown release";
        }
        String s = "rdma-core " + v;
        if (!v.equals(detected)) {
            s = "rdma-core " + detected + ", taken as " + v.major() + " ("
                    + (assumedForTest != null ? "RdmaCore.assumeForTest" : "-D" + ASSUME_PROPERTY + "=" + v.major())
                    + ")";
        }
        return s;
    }

    // ------------------------------------------------------------------------------------------ the API

    /**
     * The rdma-core release of the installed libibverbs (as the library goes by it: lowered by
     * {@value #ASSUME_PROPERTY} if set).
     *
     * @return the release, exact or a lower bound
     * @throws RdmaLibraryException if libibverbs cannot be loaded, or its release cannot be told at all
     */
    public static Version version() throws RdmaLibraryException {
        return versionOf(ibverbs());
    }

    /**
     * The rdma-core release of the installed librdmacm, as {@link #version()}.
     *
     * @return the release, exact or a lower bound
     * @throws RdmaLibraryException if librdmacm cannot be loaded, or its release cannot be told at all
     */
    public static Version rdmacmVersion() throws RdmaLibraryException {
        return versionOf(rdmacm());
    }

    private static Version versionOf(RdmaCoreDetection.Detected d) throws RdmaLibraryException {
        Version v = effective(d);
        if (v == null) {
            throw new RdmaLibraryException(
                    d.refusal().orElse("cannot tell the release of " + d.spec().library()));
        }
        return v;
    }

    /**
     * {@return the loaded libibverbs file (e.g. {@code /usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0}), if found}
     */
    public static Optional<Path> ibverbsFile() {
        return ibverbs().file();
    }

    /** {@return the loaded librdmacm file, if found} */
    public static Optional<Path> rdmacmFile() {
        return rdmacm().file();
    }

    /**
     * {@return one line per library: release, file and symbol versions found, or why it cannot be loaded}
     * For logs and {@code rdma-tool devinfo}. Never throws.
     */
    public static String describe() {
        return line(ibverbs()) + System.lineSeparator() + line(rdmacm());
    }

    private static String line(RdmaCoreDetection.Detected d) {
        String s = d.describe();
        Version detected = d.verdict().version();
        Version v = detected == null ? null : effective(d);
        if (v != null && !v.equals(detected)) {
            s += ", taken as " + v.major();
        }
        return s + d.refusal().map(r -> " [refused: " + r + "]").orElse("");
    }

    // ------------------------------------------------------------------------------------------ for the typed API

    /** Refuses to start when libibverbs is missing, unreadable or too old. Memoized: no native call after the first. */
    static void checkIbverbs() throws RdmaLibraryException {
        check(ibverbs());
    }

    /** As {@link #checkIbverbs()}, for librdmacm (and libibverbs, which it hands us contexts of). */
    static void checkRdmacm() throws RdmaLibraryException {
        check(rdmacm());
        check(ibverbs());
    }

    static void check(RdmaCoreDetection.Detected d) throws RdmaLibraryException {
        Optional<String> refusal = d.refusal();
        if (refusal.isPresent()) {
            throw new RdmaLibraryException(refusal.get());
        }
        Version v = effective(d);
        if (v.major() < OLDEST_SUPPORTED && v.exact()) {
            throw new RdmaLibraryException(d.spec().library() + " is " + installed(d) + ", older than "
                    + OLDEST_SUPPORTED + ", the oldest release supported (Debian 12's)");
        }
    }

    /**
     * How many bytes of a {@code struct ibv_qp_ex} the installed libibverbs (and its providers, which share its
     * provider ABI) has: it grew at its tail by {@code wr_atomic_write} in 44 and {@code wr_flush} in 45. QueuePair
     * reads the struct through a view of this size, so a member the installed release lacks cannot be read.
     */
    static long qpExSize() {
        if (Feature.FLUSH.isAvailable()) {
            return ibv_qp_ex.layout().byteSize();
        }
        return Feature.ATOMIC_WRITE.isAvailable() ? ibv_qp_ex.wr_flush$OFFSET : ibv_qp_ex.wr_atomic_write$OFFSET;
    }

    /**
     * How many bytes of a {@code struct ibv_port_attr} the installed libibverbs fills: {@code active_speed_ex} came
     * in 49 (commit 91b4ed8dd "verbs: Add support for XDR speed in ibv_query_port", first in v49.0).
     */
    static long portAttrSize() {
        Version v = effective(ibverbs());
        return v != null && v.atLeast(49) ? ibv_port_attr.layout().byteSize() : ibv_port_attr.active_speed_ex$OFFSET;
    }

    /** A view of the provider's {@code struct ibv_qp_ex} at {@code qpx} ending where the installed release's does. */
    static MemorySegment qpExView(MemorySegment qpx) {
        return qpx.reinterpret(qpExSize());
    }

    /**
     * For tests in this package: take the installed rdma-core as {@code release} (only lower than detected; null
     * restores). Safe at any time: objects made before keep what they found (their release really had it), objects
     * made after see less.
     */
    static void assumeForTest(Integer release) {
        assumedForTest = release;
    }

    /** Whether a test in this package lowered the release (assumeForTest). */
    static boolean assumedByTest() {
        return assumedForTest != null;
    }
}
