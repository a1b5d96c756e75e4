package io.sluice.testing.webhook;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * A real HTTP receiver on loopback that records every request, checks its signature with the
 * spec's verifier, and answers as its behaviour says (a status, a Retry-After, a delay). It can
 * go down and come back on the same port.
 */
public final class TestReceiver implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** An answer: the status, a Retry-After value (null for none), and how long to wait before answering. */
    public record Reply(int status, String retryAfter, long delayMillis) {
        public static Reply ok() {
            return new Reply(204, null, 0);
        }
    }

    /** A request as it came. */
    public record Received(String id, String timestamp, String signature, String contentType, byte[] body, long arrivedMillis, boolean verified,
                    int answered, java.util.Map<String, String> ceHeaders) {
        public JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private final List<String> secrets;
    private final List<Received> received = new ArrayList<>();
    private final AtomicInteger requests = new AtomicInteger();
    private final ExecutorService threads = Executors.newFixedThreadPool(16);
    private volatile Function<Integer, Reply> behaviour = n -> Reply.ok();
    private HttpServer server;
    private int port;

    public TestReceiver(List<String> secrets) throws IOException {
        this.secrets = secrets;
        start(0);
    }

    /** Answers each request (numbered from 1) as the function says. */
    public TestReceiver answering(Function<Integer, Reply> behaviour) {
        this.behaviour = behaviour;
        return this;
    }

    private void start(int onPort) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", onPort), 64);
        server.createContext("/", this::handle);
        server.setExecutor(threads);
        server.start();
        port = server.getAddress().getPort();
    }

    public String url() {
        return "http://127.0.0.1:" + port + "/hooks";
    }

    /** Stops listening: connections are refused until {@link #comeBack}. */
    public void goDown() {
        server.stop(0);
    }

    public void comeBack() throws IOException {
        start(port);
    }

    private void handle(HttpExchange exchange) throws IOException {
        byte[] body;
        try (InputStream in = exchange.getRequestBody()) {
            body = in.readAllBytes();
        }
        int n = requests.incrementAndGet();
        Reply reply = behaviour.apply(n);
        String id = exchange.getRequestHeaders().getFirst("webhook-id");
        String timestamp = exchange.getRequestHeaders().getFirst("webhook-timestamp");
        String signature = exchange.getRequestHeaders().getFirst("webhook-signature");
        boolean verified;
        try {
            verified = id != null && timestamp != null && signature != null
                    && SpecVerifier.verifies(secrets, id, timestamp, signature, body, System.currentTimeMillis() / 1000);
        } catch (Exception e) {
            verified = false;
        }
        java.util.Map<String, String> ce = new java.util.TreeMap<>();
        exchange.getRequestHeaders().forEach((k, v) -> {
            if (k.toLowerCase().startsWith("ce-")) {
                ce.put(k.toLowerCase(), v.get(0));
            }
        });
        synchronized (received) {
            received.add(new Received(id, timestamp, signature, exchange.getRequestHeaders().getFirst("content-type"), body,
                    System.currentTimeMillis(), verified, reply.status(), ce));
        }
        if (reply.delayMillis() > 0) {
            try {
                Thread.sleep(reply.delayMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (reply.retryAfter() != null) {
            exchange.getResponseHeaders().add("Retry-After", reply.retryAfter());
        }
        byte[] answer = ("answer " + reply.status()).getBytes();
        if (reply.status() == 204) {
            exchange.sendResponseHeaders(204, -1);
        } else {
            exchange.sendResponseHeaders(reply.status(), answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(answer);
            }
        }
        exchange.close();
    }

    public List<Received> received() {
        synchronized (received) {
            return List.copyOf(received);
        }
    }

    /** The requests answered 2xx. */
    public List<Received> accepted() {
        return received().stream().filter(r -> r.answered() >= 200 && r.answered() < 300).toList();
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
