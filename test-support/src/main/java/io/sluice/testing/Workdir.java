package io.sluice.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

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

    /** Unpacks a zip archive into {@code target}, refusing entries that would land outside it. */
    public static void unzip(Path zip, Path target) throws IOException {
        try (ZipFile file = new ZipFile(zip.toFile())) {
            Enumeration<? extends ZipEntry> entries = file.entries();
            while (entries.hasMoreElements()) {
                ZipEntry entry = entries.nextElement();
                Path out = target.resolve(entry.getName()).normalize();
                if (!out.startsWith(target)) {
                    throw new IOException("Zip entry escapes the target directory: " + entry.getName());
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(out);
                } else {
                    Files.createDirectories(out.getParent());
                    try (InputStream in = file.getInputStream(entry)) {
                        Files.copy(in, out, StandardCopyOption.REPLACE_EXISTING);
                    }
                }
            }
        }
    }
}
