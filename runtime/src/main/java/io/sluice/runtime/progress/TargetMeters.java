package io.sluice.runtime.progress;

import io.prometheus.metrics.core.metrics.Gauge;
import io.sluice.metrics.SluiceMetrics;

/** The meters of a pipeline's targets that the runtime keeps itself, beside the sinks' own: whether one is left behind. */
public final class TargetMeters {

    public static final Gauge LEFT_BEHIND = SluiceMetrics.gauge("sluice_target_left_behind_seconds",
            "With several targets in one sluice run: how long the target has been left behind (a stalled or failed target is handed no "
                    + "changes, which wait in the slot, until it catches up; docs/fan-out.md); 0 while it is fed", "target");
    public static final Gauge DETACHED = SluiceMetrics.gauge("sluice_target_detached",
            "With several targets in one sluice run: 1 while the target is detached (left behind past its detach.after.bytes: fed "
                    + "nothing, the slot confirmed without it) or being re-synced after it was brought back; 0 while it is whole "
                    + "(docs/fan-out.md)", "target");

    private TargetMeters() {
    }
}
