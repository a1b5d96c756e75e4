package io.sluice.runtime.metrics;

import java.util.List;

import io.sluice.connector.postgres.metrics.SourceMeters;
import io.sluice.runtime.progress.TargetMeters;
import io.sluice.sink.core.metrics.AppliedChanges;
import io.sluice.sink.core.metrics.SinkMeters;
import io.sluice.sink.opensearch.metrics.OpenSearchMeters;
import io.sluice.sink.webhook.metrics.WebhookMeters;

/**
 * Every class that makes metric families, loaded at once, so that the registry knows them all
 * (for docs/metrics.md) before any is used. A family in a class not named here fails
 * {@code MetricsDocTest}.
 */
public final class AllMeters {

    private static final List<Class<?>> HOLDERS = List.of(SourceMeters.class, SinkMeters.class, AppliedChanges.class,
            OpenSearchMeters.class, WebhookMeters.class, TargetMeters.class);

    private AllMeters() {
    }

    /** Makes every family (by initializing the classes that hold them). */
    public static void load() {
        for (Class<?> holder : HOLDERS) {
            try {
                Class.forName(holder.getName(), true, holder.getClassLoader());
            } catch (ClassNotFoundException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
