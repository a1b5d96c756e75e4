package io.sluice.runtime.progress;

import java.io.PrintStream;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import io.sluice.sink.core.metrics.ByteCounts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shows a pipeline's progress: on a terminal, a few lines redrawn in place twice a second
 * (total, rate, ETA, and the tables being copied); otherwise a log line every ten seconds.
 */
public final class ProgressDisplay implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ProgressDisplay.class);
    private static final int TABLE_LINES = 5;

    private final Progress progress;
    private final PrintStream out;
    private final boolean live;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "sluice-progress");
        t.setDaemon(true);
        return t;
    });
    private int drawnLines;
    private boolean closed;

    public ProgressDisplay(Progress progress, PrintStream out, boolean live) {
        this.progress = progress;
        this.out = out;
        this.live = live;
    }

    /** Live when stdout is a terminal that understands cursor movement. */
    public static boolean terminalAttached() {
        String term = System.getenv("TERM");
        return System.console() != null && term != null && !term.equals("dumb");
    }

    public void start() {
        if (live) {
            timer.scheduleAtFixedRate(this::draw, 500, 500, TimeUnit.MILLISECONDS);
        } else {
            timer.scheduleAtFixedRate(() -> {
                String batching = progress.batching();
                LOG.info(batching == null ? totalLine() : totalLine() + "; " + batching);
            }, 10, 10, TimeUnit.SECONDS);
        }
    }

    private synchronized void draw() {
        StringBuilder s = new StringBuilder();
        if (drawnLines > 0) {
            s.append("\033[").append(drawnLines).append('A');
        }
        List<String> lines = new java.util.ArrayList<>();
        lines.add(totalLine());
        String batching = progress.batching();
        if (batching != null && progress.phase() == null) {
            lines.add("  " + batching);
        }
        progress.tables().values().stream()
                .filter(t -> t.rows() > 0 && t.rows() < Math.max(1, t.estimatedRows()))
                .sorted(Comparator.comparingLong(Progress.Table::rows).reversed())
                .limit(TABLE_LINES)
                .forEach(t -> lines.add(String.format(Locale.ROOT, "  %-40s %12s rows  %3d%%", shorten(t.name()), count(t.rows()),
                        t.estimatedRows() > 0 ? Math.min(99, t.rows() * 100 / t.estimatedRows()) : 0)));
        for (String line : lines) {
            s.append("\033[2K").append(line).append('\n');
        }
        for (int i = lines.size(); i < drawnLines; i++) {
            s.append("\033[2K\n");
        }
        drawnLines = Math.max(drawnLines, lines.size());
        out.print(s);
        out.flush();
    }

    private String totalLine() {
        long eta = progress.etaSeconds();
        long estimated = progress.estimatedRows();
        String phase = progress.phase();
        if (phase != null) {
            return String.format(Locale.ROOT, "%s rows copied in %s; %s ... (%s)", count(progress.rows()),
                    duration((long) (progress.seconds() - progress.phaseSeconds())), phase, duration((long) progress.phaseSeconds()));
        }
        return String.format(Locale.ROOT, "[%s] %s / ~%s rows  %s  %s rows/s  %s/s  ETA %s", duration((long) progress.seconds()),
                count(progress.rows()), count(estimated),
                ByteCounts.format(progress.bytes()), count((long) progress.rate()), ByteCounts.format((long) (progress.bytes() / Math.max(progress.seconds(), 0.001))),
                eta < 0 ? "-" : duration(eta));
    }

    /** The closing summary. */
    public String summary() {
        return String.format(Locale.ROOT, "Snapshot done: %d tables, %s rows, %s in %s (%s rows/s, %s/s)", progress.tables().size(),
                count(progress.rows()), ByteCounts.format(progress.bytes()), duration((long) progress.seconds()), count((long) progress.rate()),
                ByteCounts.format((long) (progress.bytes() / Math.max(progress.seconds(), 0.001))));
    }

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    static String duration(long seconds) {
        if (seconds < 60) {
            return seconds + "s";
        }
        if (seconds < 3600) {
            return seconds / 60 + "m " + seconds % 60 + "s";
        }
        return seconds / 3600 + "h " + seconds / 60 % 60 + "m";
    }

    private static String shorten(String name) {
        return name.length() <= 40 ? name : "..." + name.substring(name.length() - 37);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        timer.shutdownNow();
        if (live) {
            draw();
        }
    }
}
