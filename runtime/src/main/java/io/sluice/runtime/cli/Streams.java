package io.sluice.runtime.cli;

import java.io.PrintStream;
import java.util.concurrent.Future;

/**
 * Where a command writes, and what stops a running pipeline gracefully (SIGINT, SIGTERM, or a
 * test that is done with it).
 */
public record Streams(PrintStream out, PrintStream err, Future<?> stop) {
}
