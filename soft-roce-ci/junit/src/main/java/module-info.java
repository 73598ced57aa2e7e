/**
 * {@code @RdmaDeviceTest}: a JUnit 5 extension that hands a test the RDMA device it needs.
 */
module org.panamardma.testbed {
    requires transitive org.junit.jupiter.api;

    exports org.panamardma.testbed;
}
