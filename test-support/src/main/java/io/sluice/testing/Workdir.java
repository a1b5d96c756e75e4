package io.sluice.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Where locally launched services keep their data and logs: {@code target/test-services}
 * of the module under test, or the directory named by the {@code sluice.test.workdir}
 * system property (set by the build).
 */
public final class Workdir {

    private Workdir() {
    }

    /** The directory for one service kind, created if missing. */
    public static Path of(String service) {
        String configured = System.getProperty("sluice.test.workdir");
        Path root = configured != null ? Path.of(configured) : Path.of("target", "test-services");
        Path dir = root.resolve(service).toAbsolutePath();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the test service directory " + dir, e);
        }
        return dir;
    }

    /** Deletes a directory and everything under it. */
    public static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
