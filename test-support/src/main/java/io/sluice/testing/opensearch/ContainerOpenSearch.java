package io.sluice.testing.opensearch;

import java.time.Duration;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

/** OpenSearch's own image in a Testcontainers container, security plugin off, for machines with Docker. */
final class ContainerOpenSearch implements OpenSearchNode {

    static final String IMAGE = "opensearchproject/opensearch:" + OpenSearchDistribution.VERSION;

    private final GenericContainer<?> container;

    private ContainerOpenSearch(GenericContainer<?> container) {
        this.container = container;
    }

    @SuppressWarnings("resource") // stopped by Testcontainers' reaper when the JVM exits
    static ContainerOpenSearch start() {
        GenericContainer<?> container = new GenericContainer<>(IMAGE)
                .withEnv("discovery.type", "single-node")
                .withEnv("DISABLE_SECURITY_PLUGIN", "true")
                .withEnv("DISABLE_INSTALL_DEMO_CONFIG", "true")
                .withEnv("OPENSEARCH_JAVA_OPTS", "-Xms512m -Xmx512m")
                .withExposedPorts(9200)
                .waitingFor(Wait.forHttp("/_cluster/health?wait_for_status=yellow").forPort(9200)
                        .withStartupTimeout(Duration.ofMinutes(3)));
        container.start();
        return new ContainerOpenSearch(container);
    }

    @Override
    public String httpUrl() {
        return "http://" + container.getHost() + ":" + container.getMappedPort(9200);
    }

    @Override
    public String origin() {
        return "Testcontainers " + IMAGE;
    }
}
