package io.sluice.testing.opensearch;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * An HTTP proxy in front of the test node that makes it misbehave as a loaded or failing
 * cluster does: a share of requests answered 429 or 503 without reaching the node, a share of
 * {@code _bulk} items refused with 429 (taken out of the request before it is forwarded, so the
 * node never sees them, and put back into the answer as rejections), and the whole cluster gone
 * (connections refused) for as long as a test says. And a test's own step run just before one chosen
 * request is forwarded, to put another writer's change between two requests of the sink's.
 */
public final class FaultyProxy implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final OpenSearchNode node;
    private final HttpClient client = HttpClient.newHttpClient();
    private final ExecutorService threads = Executors.newFixedThreadPool(8);
    private final Random random;
    private final int port;
    private volatile HttpServer server;
    private volatile double requestFaults;
    private volatile double itemFaults;
    private final AtomicLong requestsRefused = new AtomicLong();
    private final AtomicLong itemsRefused = new AtomicLong();
    private final List<Hook> hooks = new CopyOnWriteArrayList<>();

    /** Something to do once, before the {@code countdown}-th request with this method and path is forwarded. */
    private record Hook(String method, String path, AtomicLong countdown, Step step) {
    }

    /** A test's step, run on the proxy's thread while the request waits. */
    @FunctionalInterface
    public interface Step {
        void run() throws Exception;
    }

    private FaultyProxy(OpenSearchNode node, long seed) throws IOException {
        this.node = node;
        this.random = new Random(seed);
        this.server = listen(0);
        this.port = server.getAddress().getPort();
    }

    /** A proxy on a free loopback port, passing everything through until told otherwise. */
    public static FaultyProxy start(OpenSearchNode node, long seed) throws IOException {
        return new FaultyProxy(node, seed);
    }

    private HttpServer listen(int on) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", on), 64);
        s.createContext("/", this::handle);
        s.setExecutor(threads);
        s.start();
        return s;
    }

    /** The proxy's URL, to give the sink in place of the node's. */
    public String httpUrl() {
        return "http://127.0.0.1:" + port;
    }

    /**
     * @param requests share of requests answered 429 or 503 (half each) without being forwarded
     * @param items    share of {@code _bulk} items refused with 429
     */
    public void faults(double requests, double items) {
        this.requestFaults = requests;
        this.itemFaults = items;
    }

    /** Closes the port: connections are refused until {@link #up()}. */
    public synchronized void down() {
        if (server != null) {
            server.stop(0);
            server = null;
        }
    }

    /** Listens again on the same port. */
    public synchronized void up() throws IOException {
        if (server == null) {
            server = listen(port);
        }
    }

    /**
     * Runs {@code step} once, before the {@code nth} request (from 1) with this method and path
     * (no query) is forwarded: the node sees the step's effects before that request, deterministically.
     */
    public void before(String method, String path, int nth, Step step) {
        hooks.add(new Hook(method, path, new AtomicLong(nth), step));
    }

    public long requestsRefused() {
        return requestsRefused.get();
    }

    public long itemsRefused() {
        return itemsRefused.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().toString();
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            for (Hook hook : hooks) {
                if (hook.method().equals(method) && hook.path().equals(exchange.getRequestURI().getPath())
                        && hook.countdown().decrementAndGet() == 0 && hooks.remove(hook)) {
                    try {
                        hook.step().run();
                    } catch (Exception e) {
                        throw new IOException("The test's step before " + method + " " + path + " failed", e);
                    }
                }
            }
            double roll;
            synchronized (random) {
                roll = random.nextDouble();
            }
            if (roll < requestFaults) {
                requestsRefused.incrementAndGet();
                int status = roll < requestFaults / 2 ? 429 : 503;
                reply(exchange, method, status, ("{\"error\":{\"type\":\"injected\",\"reason\":\"refused by the test's proxy\"},\"status\":"
                        + status + "}").getBytes(StandardCharsets.UTF_8));
                return;
            }
            if (method.equals("POST") && exchange.getRequestURI().getPath().equals("/_bulk") && itemFaults > 0) {
                bulk(exchange, path, body);
                return;
            }
            HttpResponse<byte[]> answer = forward(exchange, method, path, body);
            reply(exchange, method, answer.statusCode(), answer.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Takes some items out, forwards the rest, and answers for all of them in their order. */
    private void bulk(HttpExchange exchange, String path, byte[] body) throws IOException, InterruptedException {
        String[] lines = new String(body, StandardCharsets.UTF_8).split("\n");
        List<String[]> items = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            if (lines[i].isEmpty()) {
                continue;
            }
            JsonNode action = JSON.readTree(lines[i]);
            boolean hasSource = !action.has("delete");
            items.add(hasSource ? new String[] {lines[i], lines[++i]} : new String[] {lines[i]});
        }
        boolean[] refused = new boolean[items.size()];
        StringBuilder forwarded = new StringBuilder();
        for (int i = 0; i < items.size(); i++) {
            synchronized (random) {
                refused[i] = random.nextDouble() < itemFaults;
            }
            if (!refused[i]) {
                for (String line : items.get(i)) {
                    forwarded.append(line).append('\n');
                }
            }
        }
        JsonNode forwardedAnswer = null;
        if (forwarded.length() > 0) {
            HttpResponse<byte[]> answer = forward(exchange, "POST", path, forwarded.toString().getBytes(StandardCharsets.UTF_8));
            if (answer.statusCode() != 200) {
                reply(exchange, "POST", answer.statusCode(), answer.body());
                return;
            }
            forwardedAnswer = JSON.readTree(answer.body());
        }
        ObjectNode merged = JSON.createObjectNode();
        merged.put("took", forwardedAnswer == null ? 0 : forwardedAnswer.path("took").asLong());
        ArrayNode all = merged.putArray("items");
        int next = 0;
        boolean errors = forwardedAnswer != null && forwardedAnswer.path("errors").asBoolean();
        for (int i = 0; i < items.size(); i++) {
            if (refused[i]) {
                itemsRefused.incrementAndGet();
                JsonNode action = JSON.readTree(items.get(i)[0]);
                String op = action.fieldNames().next();
                ObjectNode result = all.addObject().putObject(op);
                result.put("_index", action.path(op).path("_index").asText());
                result.put("_id", action.path(op).path("_id").asText());
                result.put("status", 429);
                ObjectNode error = result.putObject("error");
                error.put("type", "es_rejected_execution_exception");
                error.put("reason", "refused by the test's proxy");
                errors = true;
            } else {
                all.add(forwardedAnswer.path("items").get(next++));
            }
        }
        merged.put("errors", errors);
        reply(exchange, "POST", 200, JSON.writeValueAsBytes(merged));
    }

    private HttpResponse<byte[]> forward(HttpExchange exchange, String method, String path, byte[] body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(node.httpUrl() + path))
                .method(method, body.length == 0 ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (type != null) {
            request.header("Content-Type", type);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** Answers an exchange with a JSON body (none for HEAD or an empty one); for the tests' other proxies too. */
    public static void reply(HttpExchange exchange, String method, int status, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        if (method.equals("HEAD") || body.length == 0) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        down();
        threads.shutdownNow();
    }
}
