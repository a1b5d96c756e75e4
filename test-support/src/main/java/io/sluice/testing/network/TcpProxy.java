package io.sluice.testing.network;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * A loopback TCP proxy in front of a server. For tests of an unreachable server without
 * stopping it: {@link #cut()} drops every open connection and refuses new ones, as a server
 * that went down would; {@link #restore()} lets them through again. For tests and benchmarks on
 * a slow link: {@link #shape} gives connections a delay with jitter, a bandwidth cap and a
 * window (these machines have no {@code tc netem}); a new shape applies at once to connections
 * that were opened shaped. For tests of a reply lost on the way: {@link #loseReplyTo} lets a
 * request through and drops the connection before its answer comes back.
 */
public final class TcpProxy implements AutoCloseable {

    private static final byte[] NOTHING = new byte[0];

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean cut;
    private volatile LinkShape shape = LinkShape.NONE;
    /** Bytes of a request whose reply is to be lost; null when none is armed. */
    private volatile byte[] loseReplyTo;
    /** Set once the armed request went through: replies are dropped until the cut. */
    private volatile boolean muted;
    private volatile long lostReplyDelayMillis;
    private volatile boolean serverSideStaysOpen;
    /** The client side of each open connection (a subset of {@link #open}). */
    private final Set<Socket> clients = ConcurrentHashMap.newKeySet();
    /** Server sides left open and silent after their clients were dropped; closed with the proxy. */
    private final Set<Socket> abandoned = ConcurrentHashMap.newKeySet();
    /** Opens once the armed request's connections were dropped; made by each arming (none before the first). */
    private volatile CountDownLatch replyLost;
    private final ShapedPipe.Bandwidth upstream = new ShapedPipe.Bandwidth();
    private final ShapedPipe.Bandwidth downstream = new ShapedPipe.Bandwidth();

    public TcpProxy(String targetHost, int targetPort) throws IOException {
        this(targetHost, targetPort, 0);
    }

    /** @param port to listen on; 0 for any free one */
    public TcpProxy(String targetHost, int targetPort, int port) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "tcp-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public String host() {
        return listener.getInetAddress().getHostAddress();
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Drops every open connection and refuses new ones until {@link #restore()}. */
    public void cut() {
        cut = true;
        dropAll();
    }

    private void dropAll() {
        open.forEach(TcpProxy::closeQuietly);
        open.clear();
        clients.clear();
        abandoned.clear();
    }

    public void restore() {
        cut = false;
    }

    /** Shapes connections opened from now on, and changes the shape of those opened shaped. */
    public void shape(LinkShape shape) {
        this.shape = shape;
    }

    public LinkShape shape() {
        return shape;
    }

    /**
     * Arms a lost reply (once per call): the first request from a client (unshaped connections) whose bytes
     * contain {@code request} reaches the server, but nothing the server sends back afterwards
     * reaches any client, and {@code afterMillis} later every connection is dropped. So the server
     * has done the request (a COMMIT, say) while the client never learns it.
     *
     * @param request bytes of the request, at most 255
     * @return a latch that opens once the connections were dropped
     */
    public CountDownLatch loseReplyTo(byte[] request, long afterMillis) {
        return loseReplyTo(request, afterMillis, false);
    }

    /**
     * As {@link #loseReplyTo(byte[], long)}; with {@code serverSideStaysOpen}, only the clients'
     * side is dropped: the server's side stays open and silent, as after a network partition
     * the server has not noticed (its session waits, holding what its transaction locked).
     */
    public CountDownLatch loseReplyTo(byte[] request, long afterMillis, boolean serverSideStaysOpen) {
        if (request.length == 0 || request.length > 255) {
            throw new IllegalArgumentException("A request to lose the reply to is 1 to 255 bytes, got " + request.length);
        }
        CountDownLatch lost = new CountDownLatch(1);
        this.replyLost = lost;
        this.lostReplyDelayMillis = afterMillis;
        this.serverSideStaysOpen = serverSideStaysOpen;
        this.loseReplyTo = request.clone();
        return lost;
    }

    /**
     * Looks for the armed request in what a client sent, with the end of what it sent before
     * ({@code window}, up to 255 bytes: a request may be split between reads); returns the window's new content.
     */
    private byte[] requestSent(byte[] window, byte[] buffer, int n) {
        byte[] armed = loseReplyTo;
        if (armed == null) {
            return NOTHING; // unarmed, the common case, costs nothing
        }
        byte[] joined = new byte[window.length + n];
        System.arraycopy(window, 0, joined, 0, window.length);
        System.arraycopy(buffer, 0, joined, window.length, n);
        byte[] next = java.util.Arrays.copyOfRange(joined, Math.max(0, joined.length - 255), joined.length);
        if (indexOf(joined, joined.length, armed) < 0) {
            return next;
        }
        loseReplyTo = null;
        muted = true;
        CountDownLatch lost = replyLost;
        Thread later = new Thread(() -> {
            try {
                Thread.sleep(lostReplyDelayMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (serverSideStaysOpen) {
                open.stream().filter(socket -> !clients.contains(socket)).forEach(abandoned::add);
                clients.forEach(TcpProxy::closeQuietly);
            } else {
                dropAll();
            }
            muted = false;
            lost.countDown();
        }, "tcp-proxy-lose-reply");
        later.setDaemon(true);
        later.start();
        return NOTHING;
    }

    private static int indexOf(byte[] buffer, int n, byte[] pattern) {
        outer:
        for (int i = 0; i + pattern.length <= n; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (buffer[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                if (cut) {
                    closeQuietly(client);
                    continue;
                }
                Socket server = new Socket();
                try {
                    server.connect(new InetSocketAddress(targetHost, targetPort), 10_000);
                } catch (IOException e) {
                    closeQuietly(client);
                    closeQuietly(server);
                    continue;
                }
                open.add(client);
                open.add(server);
                clients.add(client);
                if (shape.shapes()) {
                    client.setTcpNoDelay(true);
                    server.setTcpNoDelay(true);
                    Runnable closeBoth = () -> {
                        closeQuietly(client);
                        closeQuietly(server);
                        open.remove(client);
                        open.remove(server);
                    };
                    String name = "tcp-proxy-" + client.getPort();
                    new ShapedPipe(client.getInputStream(), server.getOutputStream(), () -> shape, upstream, closeBoth).start(name + "-up");
                    new ShapedPipe(server.getInputStream(), client.getOutputStream(), () -> shape, downstream, closeBoth).start(name + "-down");
                } else {
                    pipe(client, server, true);
                    pipe(server, client, false);
                }
            } catch (IOException e) {
                if (listener.isClosed()) {
                    return;
                }
            }
        }
    }

    private void pipe(Socket from, Socket to, boolean fromClient) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            // Not closed by try-with-resources: closing a stream closes its socket, and an abandoned one stays open.
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                byte[] window = NOTHING;
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (!fromClient && (muted || abandoned.contains(from))) {
                        continue;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                    if (fromClient) {
                        window = requestSent(window, buffer, n);
                    }
                }
            } catch (IOException e) {
                // the other side closed, or the proxy was cut
            } finally {
                for (Socket socket : new Socket[] {from, to}) {
                    if (!abandoned.contains(socket)) {
                        closeQuietly(socket);
                        open.remove(socket);
                        clients.remove(socket);
                    }
                }
            }
        }, "tcp-proxy-pipe");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        cut();
        try {
            listener.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}
