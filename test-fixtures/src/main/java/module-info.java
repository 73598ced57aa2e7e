/**
 * The fixtures the modules' tests share (a test dependency of each, never of a library): the fuzz targets'
 * allocation check, byte-image helpers, a device's resource counts and a test class run in a JVM of its own. On the
 * class path of a module's tests it is in the unnamed module, which the tests read; on the device suite's module
 * path it is this named module.
 */
module org.panamardma.testing {
    // AllocationBudget: com.sun.management.ThreadMXBean, a thread's allocated bytes
    requires transitive jdk.management;
    // LogCapture: java.util.logging's records, what SLF4J's binding of the tests hands on
    requires transitive java.logging;
    // LogCapture: a JUnit extension
    requires transitive org.junit.jupiter.api;

    exports org.panamardma.testing;
}
