package io.sluice.testing.opensearch;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;

import io.sluice.testing.Workdir;

/**
 * The OpenSearch {@code integ-test-zip} distribution, from the local Maven repository, unpacked
 * once under the service directory. Maven fetches the zip because test modules declare it as a
 * test dependency; {@code sluice.test.opensearch.zip} names another zip.
 */
final class OpenSearchDistribution {

    /** Keep in step with {@code opensearch.version} in the parent POM. */
    static final String VERSION = System.getProperty("sluice.test.opensearch.version", "2.19.6");

    private OpenSearchDistribution() {
    }

    /** The unpacked distribution's home directory ({@code bin/}, {@code config/}, {@code lib/}...). */
    static Path unpackInto(Path serviceDir) {
        Path zip = zip();
        Path home = serviceDir.resolve("dist").resolve("opensearch-" + VERSION + "-extras");
        if (Files.isExecutable(home.resolve("bin").resolve("opensearch"))) {
            return home;
        }
        try {
            Path staging = Files.createTempDirectory(serviceDir, "unpack-");
            Workdir.unzip(zip, staging);
            Path unpacked;
            try (Stream<Path> top = Files.list(staging)) {
                unpacked = top.filter(Files::isDirectory).findFirst()
                        .orElseThrow(() -> new IllegalStateException(zip + " holds no top-level directory"));
            }
            try (Stream<Path> scripts = Files.list(unpacked.resolve("bin"))) {
                scripts.forEach(script -> script.toFile().setExecutable(true, false));
            }
            Files.createDirectories(unpacked.resolve("plugins"));
            addMapperExtras(unpacked.resolve("modules"));
            Files.createDirectories(home.getParent());
            Files.move(unpacked, home, StandardCopyOption.ATOMIC_MOVE);
            Workdir.deleteTree(staging);
            return home;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot unpack " + zip, e);
        }
    }

    /**
     * Every OpenSearch distribution but this one ships the mapper-extras module (scaled_float,
     * rank_feature…), which the sink maps numeric columns with; its jar is on Maven Central as
     * {@code org.opensearch.plugin:mapper-extras-client}, which test modules declare, and it is
     * installed here as the distributions install it.
     */
    private static void addMapperExtras(Path modules) throws IOException {
        Path jar = repository().resolve(Path.of("org", "opensearch", "plugin", "mapper-extras-client", VERSION,
                "mapper-extras-client-" + VERSION + ".jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("The OpenSearch module mapper-extras (" + jar + ") is not in the local Maven repository. "
                    + "Declare the test dependency org.opensearch.plugin:mapper-extras-client:" + VERSION + " in the module's POM");
        }
        Path module = Files.createDirectories(modules.resolve("mapper-extras"));
        Files.copy(jar, module.resolve(jar.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(module.resolve("plugin-descriptor.properties"), String.join("\n",
                "description=Adds advanced field mappers",
                "version=" + VERSION,
                "name=mapper-extras",
                "classname=org.opensearch.index.mapper.MapperExtrasPlugin",
                "java.version=11",
                "opensearch.version=" + VERSION, ""));
    }

    private static Path repository() {
        return Path.of(System.getProperty("maven.repo.local", Path.of(System.getProperty("user.home"), ".m2", "repository").toString()));
    }

    private static Path zip() {
        String configured = System.getProperty("sluice.test.opensearch.zip");
        if (configured != null && !configured.isBlank()) {
            return existing(Path.of(configured));
        }
        return existing(repository().resolve(Path.of("org", "opensearch", "distribution", "integ-test-zip", "opensearch", VERSION,
                "opensearch-" + VERSION + ".zip")));
    }

    private static Path existing(Path zip) {
        if (!Files.isRegularFile(zip)) {
            throw new IllegalStateException("OpenSearch distribution " + zip + " not found. Declare the test dependency "
                    + "org.opensearch.distribution.integ-test-zip:opensearch:" + VERSION + ":zip in the module's POM, "
                    + "set sluice.test.opensearch.zip, or set SLUICE_TEST_OPENSEARCH to a running node");
        }
        return zip;
    }
}
