package io.sluice.testing.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import io.sluice.testing.Workdir;

/**
 * Removes what earlier test JVMs left in a service directory. Each JVM works in
 * {@code jvm-<pid>}; a directory whose JVM no longer runs is stopped (in case its exit watcher
 * never ran) and deleted, so repeated runs do not fill the disk.
 */
public final class StaleRuns {

    private StaleRuns() {
    }

    public static void clean(Path serviceDir, Function<Path, List<String>> stopCommand) {
        try (Stream<Path> runs = Files.list(serviceDir)) {
            for (Path run : runs.filter(StaleRuns::isDeadRun).toList()) {
                Commands.succeeds(stopCommand.apply(run));
                Workdir.deleteTree(run);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot clean " + serviceDir, e);
        }
    }

    private static boolean isDeadRun(Path dir) {
        String name = dir.getFileName().toString();
        if (!name.startsWith("jvm-") || !Files.isDirectory(dir)) {
            return false;
        }
        try {
            long pid = Long.parseLong(name.substring(4));
            return pid != ProcessHandle.current().pid() && ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
