package io.sluice.runtime.targets;

import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.connect.sink.SinkTask;

/**
 * A started sink task and what the command shows of it.
 *
 * @param bytesSent   bytes the sink has sent to the target so far, for the progress display
 * @param batchStatus the batch size in use and its tuning, for status lines
 */
public record RunningSink(SinkTask task, LongSupplier bytesSent, Supplier<String> batchStatus) {
}
