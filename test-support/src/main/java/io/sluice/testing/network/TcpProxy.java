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

/**
 * A loopback TCP proxy in front of a server. For tests of an unreachable server without
 * stopping it: {@link #cut()} drops every open connection and refuses new ones, as a server
 * that went down would; {@link #restore()} lets them through again. For tests and benchmarks on
 * a slow link: {@link #shape} gives connections a delay with jitter, a bandwidth cap and a
 * window (these machines have no {@code tc netem}); a new shape applies at once to connections
 * that were opened shaped.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    private volatile boolean cut;
    private volatile LinkShape shape = LinkShape.NONE;
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
        open.forEach(TcpProxy::closeQuietly);
        open.clear();
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
                    pipe(client, server);
                    pipe(server, client);
                }
            } catch (IOException e) {
                if (listener.isClosed()) {
                    return;
                }
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other side closed, or the proxy was cut
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
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
