import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Issue 26: is the idle CPU of the NFS server the virtual-thread scheduler's own? The server's idle timer shape
 * (two loops sleeping 1 s, one waiting 500 ms on a monitor, one 10 s) on virtual threads ("vt") or platform threads
 * ("platform"), or virtual threads parked with no timer at all ("parked"), for SECONDS; prints the process's CPU time
 * over them (from the OperatingSystemMXBean and from /proc/self/stat) and how many timer wake-ups that was.
 * Usage: java IdleShape.java vt|platform|parked [SECONDS]
 */
public final class IdleShape {
    public static void main(String[] args) throws Exception {
        String mode = args[0];
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 20;
        AtomicLong wakes = new AtomicLong();
        Object lock = new Object();
        Thread.Builder builder = mode.equals("platform") ? Thread.ofPlatform().daemon(true) : Thread.ofVirtual();
        if (mode.equals("parked")) {
            for (int i = 0; i < 4; i++) {
                Thread.ofVirtual().start(LockSupport::park);
            }
        } else {
            for (long period : new long[] {1000, 1000, 10_000}) {
                builder.start(() -> sleepLoop(period, wakes));
            }
            builder.start(() -> waitLoop(lock, wakes));
        }
        Thread.sleep(15_000); // past start-up and the first compilations (an emulated guest is slow)
        long wakesBefore = wakes.get();
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpu0 = os.getProcessCpuTime();
        long ticks0 = processTicks();
        Thread.sleep(seconds * 1000);
        long cpu = (os.getProcessCpuTime() - cpu0) / 1_000_000;
        long procMillis = (processTicks() - ticks0) * 10;
        System.out.printf(
                "idle-shape %s: %d ms CPU over %d s (%d ms by /proc), %d timer wake-ups%n",
                mode, cpu, seconds, procMillis, wakes.get() - wakesBefore);
    }

    private static void sleepLoop(long millis, AtomicLong wakes) {
        try {
            while (true) {
                Thread.sleep(millis);
                wakes.incrementAndGet();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void waitLoop(Object lock, AtomicLong wakes) {
        try {
            synchronized (lock) {
                while (true) {
                    lock.wait(500);
                    wakes.incrementAndGet();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long processTicks() throws java.io.IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}
