package org.panamardma.rpcrdma.server;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.panamardma.rpcrdma.client.RpcRdmaClient;
import org.panamardma.rpcrdma.client.RpcRdmaClientOptions;

/**
 * The client process the soak ({@link SoakDeviceTests}) kills with SIGKILL: connects {@code connections}
 * {@link RpcRdmaClient}s to the server and makes {@link SoakCalls} on each from {@code depth} threads, forever,
 * checking every reply. It reports on stdout, one line each: {@code started} (main runs), {@code connected}, {@code done N} (replies checked good
 * so far, every 200 ms when it changed), {@code wrong WHAT} (a reply that was wrong), {@code failed WHAT} (a call
 * that failed). It exits when its stdin closes (the test JVM is gone), so it never outlives the test.
 *
 * <p>Arguments: server-address port connections depth seed call-timeout-seconds.
 */
public final class SoakVictim {
    private SoakVictim() {}

    public static void main(String[] args) {
        report("started");
        try {
            run(args);
        } catch (Throwable t) {
            report("failed " + t);
            t.printStackTrace();
            System.out.flush();
            Runtime.getRuntime().halt(2);
        }
    }

    private static void run(String[] args) throws Exception {
        InetSocketAddress server = new InetSocketAddress(InetAddress.getByName(args[0]), Integer.parseInt(args[1]));
        int connections = Integer.parseInt(args[2]);
        int depth = Integer.parseInt(args[3]);
        long seed = Long.parseLong(args[4]);
        Duration timeout = Duration.ofSeconds(Long.parseLong(args[5]));

        Thread.ofPlatform().daemon(true).name("stdin-watch").start(() -> {
            try {
                while (System.in.read() != -1) {
                    // nothing: the parent writes nothing
                }
            } catch (IOException e) {
                // the parent is gone either way
            }
            Runtime.getRuntime().halt(3);
        });

        Arena arena = Arena.ofShared();
        MemorySegment base = SoakCalls.patternBase(arena);
        List<RpcRdmaClient> clients = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            report("connecting");
            clients.add(RpcRdmaClient.connect(server, RpcRdmaClientOptions.DEFAULTS.withTimeouts(timeout, timeout)));
        }
        report("connected");
        AtomicLong done = new AtomicLong();
        SplittableRandom seeds = new SplittableRandom(seed);
        for (RpcRdmaClient c : clients) {
            for (int d = 0; d < depth; d++) {
                SoakCalls.Stream r = new SoakCalls.Stream(seeds.split());
                MemorySegment target = arena.allocate(SoakCalls.MAX_SIZE);
                Thread.ofPlatform().daemon(true).name("victim-caller").start(() -> {
                    while (true) {
                        SoakCalls.Spec spec = r.next();
                        try {
                            String wrong = SoakCalls.call(c, base, target, spec, timeout);
                            if (wrong != null) {
                                report("wrong " + wrong);
                            } else {
                                done.incrementAndGet();
                            }
                        } catch (Exception e) {
                            report("failed " + spec + ": " + (e.getCause() != null ? e.getCause() : e));
                            return;
                        }
                    }
                });
            }
        }
        long reported = -1;
        while (true) {
            long now = done.get();
            if (now != reported) {
                report("done " + now);
                reported = now;
            }
            Thread.sleep(200);
        }
    }

    private static synchronized void report(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
