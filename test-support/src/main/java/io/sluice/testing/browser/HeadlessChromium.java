package io.sluice.testing.browser;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's {@code chromium}, headless, as the tests of pages users look at drive it: the page's
 * DOM once its scripts have run, and a screenshot. Fails, saying what to install, when there is
 * no chromium on the PATH ({@code .ci/run} installs it).
 */
public final class HeadlessChromium {

    private final Path program;

    private HeadlessChromium(Path program) {
        this.program = program;
    }

    public static HeadlessChromium locate() {
        for (String name : List.of("chromium", "chromium-browser")) {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
                Path candidate = Path.of(dir, name);
                if (Files.isExecutable(candidate)) {
                    return new HeadlessChromium(candidate);
                }
            }
        }
        throw new IllegalStateException("No chromium on the PATH: the status page is tested in a real browser. Install Debian's "
                + "chromium package (apt-get install chromium); .ci/run does when it is missing");
    }

    /** The page's DOM after its scripts ran for up to {@code budgetMillis} of virtual time. */
    public String dom(String url, long budgetMillis) throws IOException, InterruptedException {
        return new String(run(List.of("--dump-dom", "--virtual-time-budget=" + budgetMillis, url)), StandardCharsets.UTF_8);
    }

    /** Saves a screenshot of the page, {@code width} by {@code height}, after its scripts ran for up to {@code budgetMillis}. */
    public void screenshot(String url, Path png, int width, int height, long budgetMillis) throws IOException, InterruptedException {
        Files.createDirectories(png.toAbsolutePath().getParent());
        Files.deleteIfExists(png);
        run(List.of("--screenshot=" + png.toAbsolutePath(), "--window-size=" + width + "," + height, "--hide-scrollbars",
                "--virtual-time-budget=" + budgetMillis, url));
        if (!Files.isRegularFile(png)) {
            throw new IllegalStateException("chromium wrote no screenshot to " + png);
        }
    }

    private byte[] run(List<String> args) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("chromium-profile");
        List<String> command = new ArrayList<>(List.of(program.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + profile));
        command.addAll(args);
        Path out = Files.createTempFile("chromium", ".out");
        Path err = Files.createTempFile("chromium", ".err");
        Process process = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("chromium did not finish in 120 s: " + command);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("chromium exited " + process.exitValue() + ": " + Files.readString(err));
            }
            return Files.readAllBytes(out);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            deleteTree(profile);
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
