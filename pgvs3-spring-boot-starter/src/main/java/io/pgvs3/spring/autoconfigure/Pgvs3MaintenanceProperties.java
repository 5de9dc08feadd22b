package io.pgvs3.spring.autoconfigure;

import java.time.Duration;

/**
 * Configuration under {@code pgvs3.maintenance.*}.
 */
public class Pgvs3MaintenanceProperties {

    /** Whether this instance runs the maintenance pass; only one instance runs it at a time. */
    private boolean enabled = true;

    /** Delay between the end of one maintenance pass and the start of the next. */
    private Duration interval = Duration.ofMillis(250);

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getInterval() {
        return interval;
    }

    public void setInterval(Duration interval) {
        this.interval = interval;
    }
}
