package io.sluice.sink.webhook.api;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.sluice.sink.webhook.delivery.TestEvent;
import io.sluice.sink.webhook.http.AddressGuard;
import io.sluice.sink.webhook.http.WebhookClient;
import io.sluice.sink.webhook.signing.SigningSecret;
import io.sluice.sink.webhook.state.DeliveryHistory;
import io.sluice.sink.webhook.state.OutboxReader;
import io.sluice.sink.webhook.state.StateDatabase;
import io.sluice.sink.webhook.state.SubscriptionTable;
import io.sluice.sink.webhook.subscription.Subscription;
import io.sluice.sink.webhook.subscription.SubscriptionSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subscriptions' REST API, on the state database: any process that can reach it may serve
 * the API, and the delivery loops pick changes up within seconds. Every request but
 * {@code GET /health} needs {@code Authorization: Bearer <token>} (401 without it).
 * <pre>
 * GET    /subscriptions                       list
 * POST   /subscriptions                       create ({"name": …, "url": …, options}); a secret is made when none is given,
 *                                             and shown in this answer only
 * GET    /subscriptions/{name}                one
 * PATCH  /subscriptions/{name}                change options (those given)
 * DELETE /subscriptions/{name}                delete
 * POST   /subscriptions/{name}/pause|resume   stop or restart deliveries (resume also after it was disabled)
 * POST   /subscriptions/{name}/test           send a test event now; the receiver's answer comes back
 * GET    /subscriptions/{name}/deliveries     attempts (?outcome=, ?since=, ?limit=) and deliveries failed for good
 * POST   /subscriptions/{name}/replay         {"delivery_id": …}, or {"failed": true} with from/to (times) or from_lsn/to_lsn
 * POST   /subscriptions/{name}/backfill       the current rows of its tables again, as reads, to it alone
 * </pre>
 * Subscriptions declared in the sink's configuration may be paused, resumed, tested and
 * replayed here; they are changed or deleted in the configuration (409).
 */
public final class WebhookApi implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WebhookApi.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final StateDatabase state;
    private final AddressGuard guard;
    private final ApiToken token;
    private final WebhookClient client;
    private final Runnable changed;
    private final SubscriptionTable subscriptions;
    private final DeliveryHistory history;
    private final OutboxReader outbox;
    private final SecureRandom random = new SecureRandom();
    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(4, r -> {
        Thread t = new Thread(r, "sluice-webhook-api");
        t.setDaemon(true);
        return t;
    });

    /**
     * Starts serving.
     *
     * @param changed told when a subscription changed, so this process's deliveries read them at once
     */
    public WebhookApi(InetSocketAddress listen, ApiToken token, StateDatabase state, WebhookClient client, AddressGuard guard,
                      Runnable changed) throws IOException {
        this.guard = guard;
        this.state = state;
        this.token = token;
        this.client = client;
        this.changed = changed;
        this.subscriptions = new SubscriptionTable(state);
        this.history = new DeliveryHistory(state);
        this.outbox = new OutboxReader(state);
        this.server = HttpServer.create(listen, 32);
        server.createContext("/", this::handle);
        server.setExecutor(threads);
        server.start();
        LOG.info("Webhook subscription API listening on {}", address());
    }

    /** Where it listens, e.g. {@code http://127.0.0.1:8089}. */
    public String address() {
        InetSocketAddress a = server.getAddress();
        String host = a.getAddress().isAnyLocalAddress() ? "0.0.0.0" : a.getAddress().getHostAddress();
        return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getRawPath();
            if (path.equals("/health") && method.equals("GET")) {
                answer(exchange, 200, JSON.createObjectNode().put("status", "ok"));
                return;
            }
            if (!token.admits(exchange.getRequestHeaders().getFirst("Authorization"))) {
                exchange.getResponseHeaders().add("WWW-Authenticate", "Bearer realm=\"sluice-webhooks\"");
                answer(exchange, 401, error("a bearer token is needed: Authorization: Bearer <token> (the API's token)"));
                return;
            }
            try {
                route(exchange, method, path);
            } catch (ApiError e) {
                answer(exchange, e.status, error(e.getMessage()));
            } catch (SQLException | RuntimeException e) {
                LOG.warn("Webhook API: {} {} failed: {}", method, path, e.toString());
                answer(exchange, 503, error("the state database could not answer: " + e.getMessage()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                answer(exchange, 503, error("interrupted"));
            }
        }
    }

    private void route(HttpExchange exchange, String method, String path) throws IOException, SQLException, InterruptedException {
        String[] parts = path.replaceAll("^/+|/+$", "").split("/");
        if (parts.length == 0 || !parts[0].equals("subscriptions")) {
            throw new ApiError(404, "no such resource: " + path + " (the API serves /subscriptions)");
        }
        try (Connection c = state.open("api")) {
            if (parts.length == 1) {
                switch (method) {
                    case "GET" -> list(exchange, c);
                    case "POST" -> create(exchange, c);
                    default -> throw new ApiError(405, method + " is not allowed on /subscriptions; use GET or POST");
                }
                return;
            }
            String name = URLDecoder.decode(parts[1], StandardCharsets.UTF_8);
            Subscription s = subscriptions.get(c, name).orElseThrow(() -> new ApiError(404, "no subscription named " + name));
            if (parts.length == 2) {
                switch (method) {
                    case "GET" -> answer(exchange, 200, SubscriptionViews.view(s, outbox.last(c)));
                    case "PATCH", "PUT" -> update(exchange, c, s);
                    case "DELETE" -> delete(exchange, c, s);
                    default -> throw new ApiError(405, method + " is not allowed on a subscription; use GET, PATCH or DELETE");
                }
                return;
            }
            String action = parts[2];
            if (parts.length == 3 && action.equals("deliveries") && method.equals("GET")) {
                deliveries(exchange, c, s);
                return;
            }
            if (parts.length != 3 || !method.equals("POST")) {
                throw new ApiError(404, "no such action: " + method + " " + path);
            }
            switch (action) {
                case "pause" -> status(exchange, c, s, Subscription.Status.PAUSED, "paused through the API");
                case "resume" -> status(exchange, c, s, Subscription.Status.ACTIVE, null);
                case "test" -> answer(exchange, 200, JSON.valueToTree(TestEvent.send(client, s.spec(), random)));
                case "replay" -> replay(exchange, c, s);
                case "backfill" -> backfill(exchange, c, s);
                default -> throw new ApiError(404, "no such action: " + action + " (pause, resume, test, replay, backfill)");
            }
        }
    }

    private void list(HttpExchange exchange, Connection c) throws IOException, SQLException {
        long last = outbox.last(c);
        ArrayNode all = JSON.createArrayNode();
        for (Subscription s : subscriptions.all(c)) {
            all.add(SubscriptionViews.view(s, last));
        }
        answer(exchange, 200, JSON.createObjectNode().set("subscriptions", all));
    }

    private void create(HttpExchange exchange, Connection c) throws IOException, SQLException {
        Map<String, String> options = SubscriptionViews.options(ApiRequests.body(exchange));
        String name = options.remove("name");
        String made = null;
        if (options.getOrDefault("secrets", "").isBlank()) {
            made = SigningSecret.generate(random);
            options.put("secrets", made);
        }
        SubscriptionSpec spec = parse(name, options);
        if (!subscriptions.create(c, spec, "api")) {
            throw new ApiError(409, "a subscription named " + name + " exists; change it with PATCH /subscriptions/" + name);
        }
        changed.run();
        LOG.info("Made {} through the API", spec);
        ObjectNode view = SubscriptionViews.view(subscriptions.get(c, name).orElseThrow(), outbox.last(c));
        if (made != null) {
            view.put("secret", made); // shown this once: the receiver needs it to verify signatures
        }
        answer(exchange, 201, view);
    }

    private void update(HttpExchange exchange, Connection c, Subscription s) throws IOException, SQLException {
        declaredByApi(s, "changed");
        Map<String, String> options = new HashMap<>(s.spec().options());
        Map<String, String> given = SubscriptionViews.options(ApiRequests.body(exchange));
        given.remove("name");
        options.putAll(given);
        SubscriptionSpec spec = parse(s.name(), options);
        subscriptions.put(c, spec, "api");
        changed.run();
        LOG.info("Changed {} through the API", spec);
        answer(exchange, 200, SubscriptionViews.view(subscriptions.get(c, s.name()).orElseThrow(), outbox.last(c)));
    }

    private void delete(HttpExchange exchange, Connection c, Subscription s) throws IOException, SQLException {
        declaredByApi(s, "deleted");
        subscriptions.delete(c, s.name());
        changed.run();
        LOG.info("Deleted {} through the API", s.spec());
        exchange.sendResponseHeaders(204, -1);
    }

    private void status(HttpExchange exchange, Connection c, Subscription s, Subscription.Status status, String reason)
            throws IOException, SQLException {
        subscriptions.setStatus(c, s.name(), status, reason);
        changed.run();
        LOG.info("Subscription {} is {} (through the API)", s.name(), status.key());
        answer(exchange, 200, SubscriptionViews.view(subscriptions.get(c, s.name()).orElseThrow(), outbox.last(c)));
    }

    private void deliveries(HttpExchange exchange, Connection c, Subscription s) throws IOException, SQLException {
        Map<String, String> query = ApiRequests.query(exchange);
        int limit = ApiRequests.intParam(query, "limit", 100, 1, 10_000);
        Instant since = ApiRequests.instant(query.get("since"), "since");
        ObjectNode answer = JSON.createObjectNode();
        answer.set("attempts", JSON.valueToTree(history.attempts(c, s.name(), query.get("outcome"), since, limit)));
        answer.set("failed", JSON.valueToTree(history.failures(c, s.name(), limit)));
        answer(exchange, 200, answer);
    }

    private void replay(HttpExchange exchange, Connection c, Subscription s) throws IOException, SQLException {
        JsonNode body = ApiRequests.body(exchange);
        int n;
        if (body.hasNonNull("delivery_id")) {
            String id = body.get("delivery_id").asText();
            if (!history.replayOne(c, s.name(), id)) {
                throw new ApiError(404, "the outbox holds no delivery " + id + " (never, or removed after its retention)");
            }
            n = 1;
        } else if (body.path("failed").asBoolean(false)) {
            try {
                n = history.replayFailed(c, s.name(), ApiRequests.instant(ApiRequests.text(body, "from"), "from"),
                        ApiRequests.instant(ApiRequests.text(body, "to"), "to"), ApiRequests.text(body, "from_lsn"),
                        ApiRequests.text(body, "to_lsn"));
            } catch (IllegalArgumentException e) {
                throw new ApiError(400, "from_lsn/to_lsn: " + e.getMessage());
            }
        } else {
            throw new ApiError(400, "say what to replay: {\"delivery_id\": \"msg_…\"}, or {\"failed\": true} with optional \"from\"/\"to\" "
                    + "(ISO times) or \"from_lsn\"/\"to_lsn\" (e.g. 0/16B3748)");
        }
        changed.run();
        answer(exchange, 200, JSON.createObjectNode().put("replayed", n));
    }

    private void backfill(HttpExchange exchange, Connection c, Subscription s) throws IOException, SQLException {
        if (!s.spec().operations().contains("read")) {
            throw new ApiError(409, "subscription " + s.name() + " leaves out read, the operation a backfill's rows come as: add read to "
                    + "its operations first");
        }
        subscriptions.requestBackfill(c, s.name());
        changed.run();
        LOG.info("Subscription {} asked for a backfill (through the API)", s.name());
        answer(exchange, 202, SubscriptionViews.view(subscriptions.get(c, s.name()).orElseThrow(), outbox.last(c)));
    }

    private static void declaredByApi(Subscription s, String what) {
        if (!s.declared().equals("api")) {
            throw new ApiError(409, "subscription " + s.name() + " is declared in the sink's configuration; it is " + what
                    + " there (subscription." + s.name() + ".*), not through the API");
        }
    }

    /** The options as a subscription; a URL whose host is an address deliveries may not reach is refused now, not at the first delivery. */
    private SubscriptionSpec parse(String name, Map<String, String> options) {
        List<String> errors = new ArrayList<>();
        for (String key : options.keySet()) {
            if (!SubscriptionSpec.DEFAULTS.containsKey(key)) {
                errors.add(key + " is no subscription option; the options are name, " + String.join(", ", SubscriptionSpec.DEFAULTS.keySet()));
            }
        }
        SubscriptionSpec spec = SubscriptionSpec.parse(name, options::get, "", errors);
        String refusal = refusedHost(options.get("url"));
        if (refusal != null) {
            errors.add("url: " + refusal);
        }
        if (!errors.isEmpty()) {
            throw new ApiError(400, String.join("; ", errors));
        }
        return spec;
    }

    /** Why deliveries may not go to the URL's host when it is an address the guard refuses; null otherwise (names are checked when connecting). */
    private String refusedHost(String url) {
        try {
            String host = url == null ? null : java.net.URI.create(url.trim()).getHost();
            if (host == null) {
                return null;
            }
            host = host.replace("[", "").replace("]", "");
            if (!host.matches("[0-9.]+|[0-9a-fA-F:]+")) {
                return null;
            }
            String refusal = guard.refusal(java.net.InetAddress.getByName(host));
            return refusal == null ? null : refusal + "; deliveries do not go there unless the sink's delivery.allow.networks holds it";
        } catch (IllegalArgumentException | java.net.UnknownHostException e) {
            return null; // the URL's own check says what is wrong with it
        }
    }

    private static ObjectNode error(String message) {
        return JSON.createObjectNode().put("error", message);
    }

    private static void answer(HttpExchange exchange, int status, JsonNode body) throws IOException {
        byte[] bytes = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(1);
        threads.shutdownNow();
    }
}
