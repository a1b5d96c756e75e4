package io.sluice.runtime.metrics;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.sluice.metrics.SluiceMetrics;
import io.sluice.runtime.progress.PipelinePhase;
import io.sluice.runtime.status.RecentWarnings;
import io.sluice.runtime.status.StatusHistory;
import io.sluice.runtime.status.StatusPage;
import io.sluice.runtime.status.StatusReport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves a running pipeline to operators on {@code --metrics}: {@code /metrics} in the
 * Prometheus text format (Sluice's meters, the JVM's and the process's), {@code /health} (the
 * process answers), {@code /ready} (streaming, or a snapshot that is moving rows), and the status
 * page on {@code /} with what it shows on {@code /status.json}.
 */
public final class MetricsServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsServer.class);
    private static volatile boolean jvmRegistered;

    private final HttpServer server;
    private final ExecutorService executor;
    private final PipelinePhase phase;
    private final StatusHistory history;
    private final RecentWarnings warnings;
    private final StatusReport report;
    private final byte[] page;

    private MetricsServer(HttpServer server, ExecutorService executor, PipelinePhase phase, String pipeline, String target) {
        this.server = server;
        this.executor = executor;
        this.phase = phase;
        this.history = new StatusHistory(SluiceMetrics.REGISTRY);
        this.warnings = RecentWarnings.attach();
        this.report = new StatusReport(pipeline, target, phase, SluiceMetrics.REGISTRY, history, warnings);
        this.page = StatusPage.html();
    }

    /**
     * Starts serving on {@code address}; see {@link MetricsAddress}.
     *
     * @param pipeline the pipeline's name, which its source's series are labelled with
     * @param target   the target as messages show it
     */
    public static MetricsServer start(InetSocketAddress address, PipelinePhase phase, String pipeline, String target) throws IOException {
        AllMeters.load();
        registerJvm();
        HttpServer server = HttpServer.create(address, 16);
        ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "sluice-metrics");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        MetricsServer metrics = new MetricsServer(server, executor, phase, pipeline, target);
        server.createContext("/metrics", metrics::metrics);
        server.createContext("/health", exchange -> send(exchange, 200, "text/plain; charset=utf-8", "ok\n"));
        server.createContext("/ready", metrics::ready);
        server.createContext("/status.json", exchange -> send(exchange, 200, "application/json",
                metrics.report.json(System.currentTimeMillis())));
        server.createContext("/", metrics::page);
        metrics.history.start();
        server.start();
        LOG.info("Serving metrics on http://{}:{}/metrics", address.getHostString(), server.getAddress().getPort());
        return metrics;
    }

    private static synchronized void registerJvm() {
        if (!jvmRegistered) {
            JvmMetrics.builder().register(SluiceMetrics.REGISTRY);
            jvmRegistered = true;
        }
    }

    /** The port served on (the one the system chose when asked for 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    private void metrics(HttpExchange exchange) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
        PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
        writer.write(body, SluiceMetrics.REGISTRY.scrape());
        send(exchange, 200, writer.getContentType(), body.toByteArray());
    }

    private void page(HttpExchange exchange) throws IOException {
        if (!"/".equals(exchange.getRequestURI().getPath())) {
            send(exchange, 404, "text/plain; charset=utf-8", "Not found: this server has /, /metrics, /health, /ready and "
                    + "/status.json\n");
            return;
        }
        send(exchange, 200, "text/html; charset=utf-8", page);
    }

    private void ready(HttpExchange exchange) throws IOException {
        String why = phase.notReady(System.currentTimeMillis());
        if (why == null) {
            send(exchange, 200, "text/plain; charset=utf-8", "ready: " + phase.phase().name().toLowerCase(java.util.Locale.ROOT) + "\n");
        } else {
            send(exchange, 503, "text/plain; charset=utf-8", "not ready: " + why + "\n");
        }
    }

    static void send(HttpExchange exchange, int status, String contentType, String body) throws IOException {
        send(exchange, status, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        try (exchange) {
            exchange.getResponseHeaders().set("Content-Type", contentType);
            boolean head = "HEAD".equals(exchange.getRequestMethod());
            exchange.sendResponseHeaders(status, head ? -1 : body.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(body);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        history.close();
        warnings.detach();
    }
}
