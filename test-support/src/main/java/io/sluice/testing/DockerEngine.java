package io.sluice.testing;

import java.nio.file.Files;
import java.nio.file.Path;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;

/**
 * Whether Testcontainers can be used. Set {@code SLUICE_TEST_DOCKER=false} to skip the probe
 * (and the local launch is used), or {@code true} to insist on containers.
 */
public final class DockerEngine {

    private static final Logger LOG = LoggerFactory.getLogger(DockerEngine.class);
    private static volatile Boolean available;

    private DockerEngine() {
    }

    public static boolean available() {
        Boolean known = available;
        if (known == null) {
            synchronized (DockerEngine.class) {
                known = available;
                if (known == null) {
                    known = probe();
                    available = known;
                }
            }
        }
        return known;
    }

    private static boolean testcontainersFindsDocker() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    private static boolean noDockerSocket() {
        return System.getenv("DOCKER_HOST") == null
                && !Files.exists(Path.of("/var/run/docker.sock"))
                && !Files.exists(Path.of(System.getProperty("user.home"), ".docker", "run", "docker.sock"))
                && !Files.exists(Path.of(System.getProperty("user.home"), ".testcontainers.properties"));
    }

    private static boolean probe() {
        String setting = System.getenv("SLUICE_TEST_DOCKER");
        if ("false".equalsIgnoreCase(setting)) {
            return false;
        }
        // Without a socket, asking Testcontainers would only log a page of errors to say the same.
        boolean answers = ("true".equalsIgnoreCase(setting) || !noDockerSocket()) && testcontainersFindsDocker();
        if (!answers && "true".equalsIgnoreCase(setting)) {
            throw new IllegalStateException("SLUICE_TEST_DOCKER=true but no Docker engine answers; "
                    + "start Docker or unset SLUICE_TEST_DOCKER to launch services locally");
        }
        LOG.info("Docker engine {}", answers ? "found: test services run in containers" : "not found: test services are launched locally");
        return answers;
    }
}
