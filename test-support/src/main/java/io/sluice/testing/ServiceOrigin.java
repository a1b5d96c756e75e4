package io.sluice.testing;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one rule for where a test service comes from: an address in an environment variable,
 * else a Testcontainers container when a Docker engine answers, else a local launch.
 */
public final class ServiceOrigin {

    private ServiceOrigin() {
    }

    public static <T> T choose(String variable, Function<String, T> external, Supplier<T> container, Supplier<T> local) {
        String address = System.getenv(variable);
        if (address != null && !address.isBlank()) {
            return external.apply(address.trim());
        }
        return DockerEngine.available() ? container.get() : local.get();
    }
}
