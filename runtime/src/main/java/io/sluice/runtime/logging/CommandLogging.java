package io.sluice.runtime.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.filter.ThresholdFilter;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.ContextAwareBase;
import ch.qos.logback.core.spi.FilterReply;

/**
 * The {@code sluice} command's logging: the progress display and warnings on the console,
 * everything at INFO in {@code .sluice/sluice.log} (or the directory the system property
 * {@code sluice.log.dir} names).
 *
 * <p>Set in code rather than in a logback.xml because reading the XML took 0.1 s of every
 * command's start. A configuration of one's own still wins: with {@code -Dlogback.configurationFile}
 * (or a logback-test.xml on the class path, as in tests) this steps aside for logback's own lookup.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class CommandLogging extends ContextAwareBase implements Configurator {

    /** The progress display's package: it prints at INFO on standard output. */
    private static final String PROGRESS_LOGGER = "io.sluice.runtime.progress";
    /** Debezium's embedded engine, which runs the pipeline. */
    private static final String ENGINE_LOGGER = "io.debezium.embedded";

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null
                || CommandLogging.class.getClassLoader().getResource("logback-test.xml") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        apply(context, logDirectory());
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** The command's log file, as this configuration names it. */
    public static String logFile() {
        return logDirectory() + "/sluice.log";
    }

    private static String logDirectory() {
        return System.getProperty("sluice.log.dir", ".sluice");
    }

    /** Sets up the context's appenders and levels, the log file in {@code directory}. */
    static void apply(LoggerContext context, String directory) {
        OutputStreamAppender<ILoggingEvent> console = console(context, "console", "System.err", "%d{HH:mm:ss} %-5level %msg%n", Level.WARN);
        console.addFilter(new ReportedByTheCommand());
        OutputStreamAppender<ILoggingEvent> progress = console(context, "progress", "System.out", "%d{HH:mm:ss} %msg%n", null);
        FileAppender<ILoggingEvent> file = new FileAppender<>();
        file.setContext(context);
        file.setName("file");
        file.setFile(directory + "/sluice.log");
        file.setEncoder(encoder(context, "%d{yyyy-MM-dd HH:mm:ss.SSS} [%thread] %-5level %logger{36} - %msg%n"));
        file.start();

        Logger display = context.getLogger(PROGRESS_LOGGER);
        display.setLevel(Level.INFO);
        display.setAdditive(false);
        display.addAppender(progress);
        display.addAppender(file);
        context.getLogger("io.sluice").setLevel(Level.INFO);
        context.getLogger("io.debezium").setLevel(Level.INFO);
        context.getLogger("org.apache.kafka").setLevel(Level.WARN);
        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(console);
        root.addAppender(file);
    }

    /**
     * Keeps the engine's own report of a failed run off the console: a stack trace of twenty lines
     * before the command's one-line message that says the same and points to the log file, where
     * the trace still goes.
     */
    private static final class ReportedByTheCommand extends Filter<ILoggingEvent> {
        @Override
        public FilterReply decide(ILoggingEvent event) {
            boolean engineFailed = event.getLevel() == Level.ERROR && event.getLoggerName().startsWith(ENGINE_LOGGER)
                    && event.getMessage() != null && event.getMessage().startsWith("Engine has failed");
            return engineFailed ? FilterReply.DENY : FilterReply.NEUTRAL;
        }
    }

    private static ConsoleAppender<ILoggingEvent> console(LoggerContext context, String name, String target, String pattern, Level threshold) {
        ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setContext(context);
        appender.setName(name);
        appender.setTarget(target);
        if (threshold != null) {
            ThresholdFilter filter = new ThresholdFilter();
            filter.setContext(context);
            filter.setLevel(threshold.toString());
            filter.start();
            appender.addFilter(filter);
        }
        appender.setEncoder(encoder(context, pattern));
        appender.start();
        return appender;
    }

    private static PatternLayoutEncoder encoder(LoggerContext context, String pattern) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(pattern);
        encoder.start();
        return encoder;
    }
}
