package org.panamardma.verbs;

/**
 * Run in a child JVM by {@link RdmaCoreChildJvmTest}: prints what RdmaCore makes of the libibverbs this JVM loaded,
 * one {@code key=value} line each, and what the first entries do (twice: a failure must be the same the second time,
 * not a NoClassDefFoundError of a class whose initialiser failed).
 */
final class RdmaCoreReport {
    private RdmaCoreReport() {}

    public static void main(String[] args) {
        System.out.println("describe=" + RdmaCore.describe().replace(System.lineSeparator(), " | "));
        System.out.println("file="
                + RdmaCore.ibverbsFile().map(p -> p.getFileName().toString()).orElse("none"));
        try {
            System.out.println("version=" + RdmaCore.version());
        } catch (Throwable t) {
            System.out.println("version=" + t);
        }
        System.out.println("flush=" + RdmaCore.Feature.FLUSH.isAvailable());
        System.out.println("atomicWrite=" + RdmaCore.Feature.ATOMIC_WRITE.isAvailable());
        try {
            RdmaCore.Feature.FLUSH.require();
            System.out.println("flushRequire=ok");
        } catch (Throwable t) {
            System.out.println("flushRequire=" + t.getMessage());
        }
        for (int i = 1; i <= 2; i++) {
            try {
                System.out.println("list" + i + "=ok " + Device.list().size());
            } catch (Throwable t) {
                System.out.println("list" + i + "=" + t);
            }
        }
        try {
            org.panamardma.verbs.cm.EventChannel.create().close();
            System.out.println("eventChannel=ok");
        } catch (Throwable t) {
            System.out.println("eventChannel=" + t);
        }
    }
}
