import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * The benchmark's receiver (bench/webhooks.sh): answers 204 at once, counts the change events it
 * got (a Sluice batch holds several; a Sluice or pgstream request otherwise one), and notes when
 * each row of table probe first arrived (microseconds since the epoch), for the latency. It
 * does not verify signatures: it measures the senders, not itself.
 *
 * Each sender posts to a path of its own (/sluice, /pgstream, ...), counted apart:
 * java bench/WebhookReceiver.java PORT        then GET /count/NAME ("events requests"), GET /probes/NAME (id micros
 *                                             lines), POST /reset/NAME (the counts)
 *
 * A path whose name starts with "flaky" gets a misbehaving receiver instead (a throttled, failing
 * one beside which a healthy subscription must keep its latency): 429 with Retry-After: 1 past
 * -Dflaky.rate requests in the current second (default 150), else 503 to -Dflaky.failures of the
 * requests (default 0.10), and -Dflaky.slow of them (default 0.003) answered only after
 * -Dflaky.slow.ms (default 3000; more than the subscription's timeout.ms); the others 204.
 */
public final class WebhookReceiver {

    private static final Pattern EVENT = Pattern.compile("\"operation\":\"|\"Data\":");
    private static final Pattern SLUICE_PROBE = Pattern.compile("\"table\":\"probe\",\"key\":\\{\"id\":(\\d+)\\}");
    private static final Pattern PGSTREAM_PROBE = Pattern.compile("\"table\":\"probe\",\"columns\":\\[\\{\"id\":\"[^\"]*\",\"name\":\"id\",\"type\":\"[^\"]*\",\"value\":(\\d+)");
    /** Per sender (the path's first segment): events, requests, and each probe row's first arrival. */
    private record Sender(AtomicLong events, AtomicLong requests, Map<Long, Long> probes) {
    }

    private static final Map<String, Sender> SENDERS = new ConcurrentHashMap<>();
    private static final double FLAKY_FAILURES = Double.parseDouble(System.getProperty("flaky.failures", "0.10"));
    private static final double FLAKY_SLOW = Double.parseDouble(System.getProperty("flaky.slow", "0.003"));
    private static final long FLAKY_SLOW_MILLIS = Long.parseLong(System.getProperty("flaky.slow.ms", "3000"));
    private static final long FLAKY_RATE = Long.parseLong(System.getProperty("flaky.rate", "150"));
    /** The second a flaky receiver counts requests in, and how many came in it. */
    private static final AtomicLong FLAKY_SECOND = new AtomicLong();
    private static final AtomicLong FLAKY_IN_SECOND = new AtomicLong();

    private static Sender sender(String name) {
        return SENDERS.computeIfAbsent(name, n -> new Sender(new AtomicLong(), new AtomicLong(), new ConcurrentHashMap<>()));
    }

    public static void main(String[] args) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])), 2048);
        server.createContext("/", WebhookReceiver::handle);
        server.setExecutor(Executors.newFixedThreadPool(Integer.parseInt(System.getProperty("threads", "32"))));
        server.start();
        System.out.println("receiving on " + args[0]);
    }

    private static void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String[] path = exchange.getRequestURI().getPath().replaceAll("^/+", "").split("/");
            if (path.length == 2 && path[0].equals("count")) {
                Sender s = sender(path[1]);
                answer(exchange, s.events().get() + " " + s.requests().get() + "\n");
                return;
            }
            if (path.length == 2 && path[0].equals("probes")) {
                StringBuilder text = new StringBuilder();
                sender(path[1]).probes().forEach((id, micros) -> text.append(id).append('\t').append(micros).append('\n'));
                answer(exchange, text.toString());
                return;
            }
            if (path.length == 2 && path[0].equals("reset")) {
                Sender s = sender(path[1]);
                s.events().set(0); // the probes stay: each is noted once, at its first arrival
                s.requests().set(0);
                answer(exchange, "ok\n");
                return;
            }
            Sender from = sender(path[0]);
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readAllBytes();
            }
            if (path[0].startsWith("flaky") && misbehave(exchange)) {
                return;
            }
            Instant now = Instant.now();
            long micros = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
            String text = new String(body, StandardCharsets.UTF_8);
            long events = 0;
            Matcher m = EVENT.matcher(text);
            while (m.find()) {
                events++;
            }
            from.events().addAndGet(Math.max(1, events));
            from.requests().incrementAndGet();
            if (text.contains("\"table\":\"probe\"")) {
                for (Pattern p : new Pattern[] {SLUICE_PROBE, PGSTREAM_PROBE}) {
                    Matcher probe = p.matcher(text);
                    while (probe.find()) {
                        from.probes().putIfAbsent(Long.parseLong(probe.group(1)), micros);
                    }
                }
            }
            exchange.sendResponseHeaders(204, -1);
        }
    }

    /** Answers as the flaky receiver does when it does not take the request; false when it takes it. */
    private static boolean misbehave(HttpExchange exchange) throws IOException {
        long second = System.currentTimeMillis() / 1000;
        long seen = FLAKY_SECOND.getAndSet(second);
        long inSecond = seen == second ? FLAKY_IN_SECOND.incrementAndGet() : resetSecond();
        double draw = ThreadLocalRandom.current().nextDouble();
        if (inSecond > FLAKY_RATE) {
            exchange.getResponseHeaders().add("Retry-After", "1");
            exchange.sendResponseHeaders(429, -1);
            return true;
        }
        if (draw < FLAKY_SLOW) {
            try {
                Thread.sleep(FLAKY_SLOW_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        } else if (draw < FLAKY_SLOW + FLAKY_FAILURES) {
            exchange.sendResponseHeaders(503, -1);
            return true;
        }
        return false;
    }

    private static long resetSecond() {
        FLAKY_IN_SECOND.set(1);
        return 1;
    }

    private static void answer(HttpExchange exchange, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(200, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }
}
