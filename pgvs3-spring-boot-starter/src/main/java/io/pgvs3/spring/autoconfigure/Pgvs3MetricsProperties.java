package io.pgvs3.spring.autoconfigure;

import java.time.Duration;

/**
 * Configuration under {@code pgvs3.metrics.*}.
 */
public class Pgvs3MetricsProperties {

    /** Whether pgvs3 registers Micrometer meters. */
    private boolean enabled = true;

    /** How often the queue gauges (consumer lag, job depth) are refreshed from the database, never per scrape. */
    private Duration sampleInterval = Duration.ofSeconds(15);

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Duration getSampleInterval() {
        return sampleInterval;
    }

    public void setSampleInterval(Duration sampleInterval) {
        this.sampleInterval = sampleInterval;
    }
}
