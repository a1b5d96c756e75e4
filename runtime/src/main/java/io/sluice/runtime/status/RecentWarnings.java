package io.sluice.runtime.status;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import org.slf4j.LoggerFactory;

/** The last warnings and errors the process logged, for the status page: a log appender that keeps the newest {@value #KEPT}. */
public final class RecentWarnings extends AppenderBase<ILoggingEvent> {

    static final int KEPT = 20;

    /** One line: when, how bad, what. */
    public record Warning(long atMillis, String level, String message) {
    }

    private final ArrayDeque<Warning> kept = new ArrayDeque<>();

    /** Starts keeping the warnings logged from now on, by every logger. */
    public static RecentWarnings attach() {
        RecentWarnings appender = new RecentWarnings();
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            appender.setContext(context);
            appender.setName("sluice-status-warnings");
            appender.start();
            context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(appender);
        }
        return appender;
    }

    @Override
    protected synchronized void append(ILoggingEvent event) {
        if (!event.getLevel().isGreaterOrEqual(Level.WARN)) {
            return;
        }
        kept.addLast(new Warning(event.getTimeStamp(), event.getLevel().toString(), event.getFormattedMessage()));
        while (kept.size() > KEPT) {
            kept.removeFirst();
        }
    }

    /** The warnings kept, newest first. */
    public synchronized List<Warning> newestFirst() {
        List<Warning> out = new ArrayList<>(kept);
        java.util.Collections.reverse(out);
        return out;
    }

    /** Stops keeping warnings. */
    public void detach() {
        if (getContext() instanceof LoggerContext context) {
            context.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(this);
        }
        stop();
    }
}
