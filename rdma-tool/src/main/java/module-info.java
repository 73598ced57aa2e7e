/**
 * The command-line tool {@code rdma-tool} (devinfo, ping, perf, demo): an application of {@code org.panamardma.verbs},
 * kept out of the library's jar. Run it as {@code java -jar rdma-tool/target/rdma-tool.jar} (the jar's manifest grants
 * native access), or on the module path as
 * {@code java --module-path ... --enable-native-access=org.panamardma.verbs -m org.panamardma.rdmatool}.
 *
 * <p>Nothing is exported: the tool is used through its command line.
 */
module org.panamardma.rdmatool {
    requires org.panamardma.verbs;
}
