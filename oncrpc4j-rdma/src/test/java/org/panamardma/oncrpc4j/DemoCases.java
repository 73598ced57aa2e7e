package org.panamardma.oncrpc4j;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.dcache.oncrpc4j.xdr.XdrAble;
import org.dcache.oncrpc4j.xdr.XdrLong;
import org.dcache.oncrpc4j.xdr.XdrVoid;
import org.panamardma.oncrpc4j.demo.AddArgs;
import org.panamardma.oncrpc4j.demo.Blob;
import org.panamardma.oncrpc4j.demo.Demo;
import org.panamardma.oncrpc4j.demo.FailArgs;
import org.panamardma.oncrpc4j.demo.ListArgs;
import org.panamardma.oncrpc4j.demo.ListRes;
import org.panamardma.oncrpc4j.demo.ReadArgs;
import org.panamardma.oncrpc4j.demo.ReadRes;

/** Calls of every procedure of the demo program, to be made over each transport and compared. */
final class DemoCases {
    /**
     * One call.
     *
     * @param name says what it is
     * @param version the program version called
     * @param procedure the procedure called
     * @param args the arguments
     * @param results a fresh results object, or null where the call fails
     * @param replyBytes about the most the reply takes (a client offers room for it)
     */
    record Case(String name, int version, int procedure, XdrAble args, Supplier<XdrAble> results, int replyBytes) {
        @Override
        public String toString() {
            return name;
        }
    }

    private DemoCases() {}

    /** The files READ is asked for; the tests create them. */
    static final int[] FILES = {0, 1, 5000, (1 << 20) + 3};

    /** Every procedure, with arguments of several sizes; {@code largest} bounds the ECHO and READ sizes. */
    static List<Case> all(int largest) {
        List<Case> cases = new ArrayList<>();
        cases.add(new Case("NULL", 1, Demo.NULL_1, XdrVoid.XDR_VOID, () -> XdrVoid.XDR_VOID, 64));
        for (int size : new int[] {0, 1, 3001, 100_003, largest}) {
            if (size <= largest) {
                cases.add(new Case(
                        "ECHO " + size, 1, Demo.ECHO_1, new Blob(DemoFiles.pattern(size)), Blob::new, size + 64));
            }
        }
        cases.add(new Case("ADD", 1, Demo.ADD_1, new AddArgs(Long.MAX_VALUE - 5, 3), () -> new XdrLong(0), 64));
        cases.add(new Case("ADD overflow", 1, Demo.ADD_1, new AddArgs(Long.MAX_VALUE, 1), () -> new XdrLong(0), 64));
        for (int size : FILES) {
            if (size <= largest) {
                cases.add(new Case(
                        "READ " + size,
                        1,
                        Demo.READ_1,
                        new ReadArgs(DemoFiles.name(size), 0, size),
                        ReadRes::new,
                        size + 64));
            }
        }
        cases.add(new Case(
                "READ middle", 1, Demo.READ_1, new ReadArgs(DemoFiles.name(5000), 1001, 2002), ReadRes::new, 2100));
        cases.add(new Case(
                "READ past the end", 1, Demo.READ_1, new ReadArgs(DemoFiles.name(5000), 9000, 10), ReadRes::new, 64));
        cases.add(new Case("READ missing", 1, Demo.READ_1, new ReadArgs("missing", 0, 10), ReadRes::new, 64));
        cases.add(new Case("READ bad name", 1, Demo.READ_1, new ReadArgs("../etc/passwd", 0, 10), ReadRes::new, 64));
        cases.add(new Case("LIST 0", 1, Demo.LIST_1, new ListArgs(0, 10), ListRes::new, 64));
        cases.add(new Case("LIST 20", 1, Demo.LIST_1, new ListArgs(20, 30), ListRes::new, 2000));
        cases.add(new Case("LIST 3000", 1, Demo.LIST_1, new ListArgs(3000, 100), ListRes::new, 3000 * 120 + 64));
        cases.add(new Case("ECHO_LATER", 1, Demo.ECHO_LATER_1, new Blob(DemoFiles.pattern(999)), Blob::new, 1100));
        cases.add(new Case("FAIL none", 1, Demo.FAIL_1, new FailArgs(99), () -> XdrVoid.XDR_VOID, 64));
        cases.add(new Case("FAIL runtime: SYSTEM_ERR", 1, Demo.FAIL_1, new FailArgs(Demo.FAIL_RUNTIME), null, 64));
        cases.add(new Case("FAIL xdr: GARBAGE_ARGS", 1, Demo.FAIL_1, new FailArgs(Demo.FAIL_XDR), null, 64));
        cases.add(new Case("FAIL io: GARBAGE_ARGS", 1, Demo.FAIL_1, new FailArgs(Demo.FAIL_IO), null, 64));
        cases.add(new Case("FAIL auth: AUTH_TOOWEAK", 1, Demo.FAIL_1, new FailArgs(Demo.FAIL_AUTH), null, 64));
        cases.add(new Case("LIST too many: SYSTEM_ERR", 1, Demo.LIST_1, new ListArgs(1 << 30, 10), null, 64));
        cases.add(new Case("procedure 99: PROC_UNAVAIL", 1, 99, XdrVoid.XDR_VOID, null, 64));
        cases.add(new Case("version 2: PROG_UNAVAIL", 2, Demo.NULL_1, XdrVoid.XDR_VOID, null, 64));
        cases.add(new Case("ADD cut short: GARBAGE_ARGS", 1, Demo.ADD_1, new Blob(new byte[4]), null, 64));
        return cases;
    }
}
