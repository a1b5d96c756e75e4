package io.sluice.testing.network;

import java.time.Duration;

/**
 * Runs a shaped {@link TcpProxy} as a process of its own, for benchmarks that start Sluice as a
 * command: {@code java -cp sluice-test-support.jar io.sluice.testing.network.SlowLinkProxy
 * LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS JITTER_MS MBIT_PER_S WINDOW_KIB} (0 for no cap or
 * no window). Runs until killed.
 */
public final class SlowLinkProxy {

    private SlowLinkProxy() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println("usage: SlowLinkProxy LISTEN_PORT TARGET_HOST TARGET_PORT DELAY_MS JITTER_MS MBIT_PER_S WINDOW_KIB");
            System.exit(2);
        }
        LinkShape shape = new LinkShape(Duration.ofMillis(Long.parseLong(args[3])), Duration.ofMillis(Long.parseLong(args[4])),
                Long.parseLong(args[5]) * 1_000_000 / 8, Long.parseLong(args[6]) * 1024);
        TcpProxy proxy = new TcpProxy(args[1], Integer.parseInt(args[2]), Integer.parseInt(args[0]));
        proxy.shape(shape);
        System.out.println("Proxy on " + proxy.port() + " to " + args[1] + ":" + args[2] + ": " + shape);
        Thread.currentThread().join();
    }
}
