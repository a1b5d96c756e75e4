package io.sluice.testing.opensearch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.sluice.testing.Ports;
import io.sluice.testing.Workdir;
import io.sluice.testing.process.ExitGuard;
import io.sluice.testing.process.ServiceUser;
import io.sluice.testing.process.StaleRuns;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A single OpenSearch node started from the unpacked distribution, on 127.0.0.1 and free
 * ports, running on this JVM's Java, with config, data and logs under
 * {@code target/test-services/opensearch/jvm-<pid>}.
 */
final class LocalOpenSearch implements OpenSearchNode {

    private static final Logger LOG = LoggerFactory.getLogger(LocalOpenSearch.class);
    private static final Duration STARTUP = Duration.ofMinutes(4);

    private final int port;
    private final Path home;

    private LocalOpenSearch(int port, Path home) {
        this.port = port;
        this.home = home;
    }

    static LocalOpenSearch start() {
        ServiceUser user = ServiceUser.current();
        Path root = Workdir.of("opensearch");
        StaleRuns.clean(root, LocalOpenSearch::stopCommand);
        Path dist = OpenSearchDistribution.unpackInto(root);

        Path home = root.resolve("jvm-" + ProcessHandle.current().pid());
        Path config = home.resolve("config");
        int httpPort = Ports.freeLoopbackPort();
        int transportPort = Ports.freeLoopbackPort();
        try {
            Files.createDirectories(config);
            try (Stream<Path> files = Files.list(dist.resolve("config"))) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    Files.copy(f, config.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            // The stock options name log and dump paths relative to the distribution, which the
            // server user cannot write to: point them into this node's home instead.
            Path jvmOptions = config.resolve("jvm.options");
            Files.writeString(jvmOptions, Files.readString(jvmOptions)
                    .replace("file=logs/", "file=" + home.resolve("logs") + "/")
                    .replace("-XX:ErrorFile=logs/", "-XX:ErrorFile=" + home.resolve("logs") + "/")
                    .replace("-XX:HeapDumpPath=data", "-XX:HeapDumpPath=" + home.resolve("data")));
            Files.writeString(config.resolve("opensearch.yml"), String.join("\n",
                    "cluster.name: sluice-test",
                    "node.name: node-1",
                    "network.host: 127.0.0.1",
                    "http.port: " + httpPort,
                    "transport.port: " + transportPort,
                    "discovery.type: single-node",
                    "path.data: " + home.resolve("data"),
                    "path.logs: " + home.resolve("logs"),
                    "action.auto_create_index: true",
                    "cluster.routing.allocation.disk.threshold_enabled: false",
                    ""), StandardCharsets.UTF_8);
            Files.createDirectories(home.resolve("logs"));
            Files.createDirectories(home.resolve("tmp"));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot prepare OpenSearch in " + home, e);
        }
        user.ownedDirectory(home);

        Path console = home.resolve("logs").resolve("console.log");
        Path pidFile = home.resolve("opensearch.pid");
        ProcessBuilder builder = new ProcessBuilder(user.command(List.of(dist.resolve("bin").resolve("opensearch").toString(),
                "-p", pidFile.toString())))
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(console.toFile());
        Map<String, String> env = builder.environment();
        env.put("OPENSEARCH_JAVA_HOME", System.getProperty("java.home"));
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("OPENSEARCH_PATH_CONF", config.toString());
        env.put("OPENSEARCH_TMPDIR", home.resolve("tmp").toString());
        env.put("OPENSEARCH_JAVA_OPTS", "-Xms512m -Xmx512m");
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start OpenSearch from " + dist, e);
        }
        ExitGuard.register("opensearch", () -> stop(process, pidFile), stopCommand(home));
        awaitHealthy(process, httpPort, console);
        LOG.info("OpenSearch {} started on 127.0.0.1:{}, logs in {}", OpenSearchDistribution.VERSION, httpPort, home.resolve("logs"));
        return new LocalOpenSearch(httpPort, home);
    }

    private static List<String> stopCommand(Path home) {
        Path pidFile = home.resolve("opensearch.pid");
        return List.of("sh", "-c", "test -f '" + pidFile + "' && kill \"$(cat '" + pidFile + "')\"");
    }

    private static void stop(Process process, Path pidFile) {
        try {
            if (Files.exists(pidFile)) {
                long pid = Long.parseLong(Files.readString(pidFile).trim());
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroy);
            }
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (IOException | NumberFormatException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    private static void awaitHealthy(Process process, int port, Path console) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/_cluster/health?wait_for_status=yellow&timeout=5s"))
                .timeout(Duration.ofSeconds(10)).build();
        long deadline = System.nanoTime() + STARTUP.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("OpenSearch exited with code " + process.exitValue() + " during startup; "
                        + "its output is in " + console + ":\n" + tail(console));
            }
            try {
                HttpResponse<String> response = http.send(health, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for OpenSearch", e);
            }
            sleep(500);
        }
        throw new IllegalStateException("OpenSearch did not become healthy within " + STARTUP.toSeconds() + " s; see " + console
                + ":\n" + tail(console));
    }

    private static String tail(Path file) {
        try {
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + file + ": " + e.getMessage() + ")";
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for OpenSearch", e);
        }
    }

    @Override
    public String httpUrl() {
        return "http://127.0.0.1:" + port;
    }

    @Override
    public String origin() {
        return "local launch in " + home;
    }
}
