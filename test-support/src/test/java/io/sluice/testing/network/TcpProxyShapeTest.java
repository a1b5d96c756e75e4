package io.sluice.testing.network;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shaped proxy behaves like the link it stands for: a round trip takes two delays, one
 * connection moves no more than its window per round trip, all connections together no more
 * than the bandwidth, and bytes arrive whole and in order despite the jitter. Bounds are on
 * the slow side (what the proxy must at least cost), with room above for a busy machine.
 */
class TcpProxyShapeTest {

    private ServerSocket server;

    /** A server that answers each byte-count request with that many bytes, or swallows what it is sent. */
    @BeforeEach
    void startServer() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!server.isClosed()) {
                try {
                    Socket s = server.accept();
                    Thread h = new Thread(() -> serve(s));
                    h.setDaemon(true);
                    h.start();
                } catch (IOException e) {
                    return;
                }
            }
        });
        t.setDaemon(true);
        t.start();
    }

    /** Protocol: 'e' n → echoes n bytes back; 's' n → reads n bytes, answers one byte. */
    private static void serve(Socket s) {
        try (s; DataInputStream in = new DataInputStream(s.getInputStream()); OutputStream out = s.getOutputStream()) {
            while (true) {
                int op = in.read();
                if (op < 0) {
                    return;
                }
                int n = in.readInt();
                byte[] bytes = in.readNBytes(n);
                if (op == 'e') {
                    out.write(bytes);
                } else {
                    out.write(1);
                }
                out.flush();
            }
        } catch (IOException e) {
            // client gone
        }
    }

    @AfterEach
    void stopServer() throws IOException {
        server.close();
    }

    @Test
    void aRoundTripTakesTheDelayBothWays() throws Exception {
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", server.getLocalPort())) {
            proxy.shape(new LinkShape(Duration.ofMillis(100), Duration.ofMillis(10), 0, 0));
            try (Socket s = new Socket(proxy.host(), proxy.port())) {
                send(s, 's', new byte[10]); // connection warm
                List<Long> millis = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    long start = System.nanoTime();
                    send(s, 's', new byte[10]);
                    millis.add((System.nanoTime() - start) / 1_000_000);
                }
                assertThat(millis).allSatisfy(m -> assertThat(m).isBetween(180L, 600L));
            }
        }
    }

    @Test
    void oneConnectionMovesAtMostItsWindowPerRoundTrip() throws Exception {
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", server.getLocalPort())) {
            // 256 KiB per 100 ms round trip: 2.5 MiB/s, so 4 MiB take at least 1.5 s.
            proxy.shape(new LinkShape(Duration.ofMillis(50), Duration.ZERO, 0, 256 * 1024));
            try (Socket s = new Socket(proxy.host(), proxy.port())) {
                long start = System.nanoTime();
                send(s, 's', new byte[4 << 20]);
                double seconds = (System.nanoTime() - start) / 1e9;
                assertThat(seconds).isBetween(1.5, 6.0);
            }
        }
    }

    @Test
    void allConnectionsTogetherMoveAtMostTheBandwidth() throws Exception {
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", server.getLocalPort())) {
            proxy.shape(new LinkShape(Duration.ZERO, Duration.ZERO, 1_000_000, 0)); // 1 MB/s
            long start = System.nanoTime();
            List<CompletableFuture<Void>> pushes = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                pushes.add(CompletableFuture.runAsync(() -> {
                    try (Socket s = new Socket(proxy.host(), proxy.port())) {
                        send(s, 's', new byte[1_500_000]);
                    } catch (IOException e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            CompletableFuture.allOf(pushes.toArray(CompletableFuture[]::new)).get();
            double seconds = (System.nanoTime() - start) / 1e9;
            assertThat(seconds).isBetween(2.9, 10.0);
        }
    }

    @Test
    void bytesArriveWholeAndInOrderDespiteJitter() throws Exception {
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", server.getLocalPort())) {
            proxy.shape(new LinkShape(Duration.ofMillis(20), Duration.ofMillis(20), 50_000_000, 64 * 1024));
            byte[] data = new byte[3 << 20];
            new Random(7).nextBytes(data);
            try (Socket s = new Socket(proxy.host(), proxy.port())) {
                byte[] echoed = send(s, 'e', data);
                assertThat(Arrays.equals(echoed, data)).as("echo equals what was sent").isTrue();
            }
        }
    }

    @Test
    void aNewShapeAppliesToOpenConnections() throws Exception {
        try (TcpProxy proxy = new TcpProxy("127.0.0.1", server.getLocalPort())) {
            proxy.shape(new LinkShape(Duration.ofMillis(1), Duration.ZERO, 0, 0));
            try (Socket s = new Socket(proxy.host(), proxy.port())) {
                long start = System.nanoTime();
                send(s, 's', new byte[10]);
                assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(150);
                proxy.shape(new LinkShape(Duration.ofMillis(150), Duration.ZERO, 0, 0));
                send(s, 's', new byte[10]); // the read that was waiting took the old shape
                start = System.nanoTime();
                send(s, 's', new byte[10]);
                assertThat((System.nanoTime() - start) / 1_000_000).isGreaterThanOrEqualTo(300);
            }
        }
    }

    private static byte[] send(Socket s, char op, byte[] payload) throws IOException {
        OutputStream out = s.getOutputStream();
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.write(op);
        request.write(new byte[] {(byte) (payload.length >>> 24), (byte) (payload.length >>> 16), (byte) (payload.length >>> 8),
                (byte) payload.length});
        request.write(payload);
        out.write(request.toByteArray());
        out.flush();
        InputStream in = s.getInputStream();
        return in.readNBytes(op == 'e' ? payload.length : 1);
    }
}
