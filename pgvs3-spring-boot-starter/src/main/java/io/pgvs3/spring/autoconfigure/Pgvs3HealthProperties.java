package io.pgvs3.spring.autoconfigure;

import java.time.Duration;

/**
 * Configuration under {@code pgvs3.health.*}.
 */
public class Pgvs3HealthProperties {

    /** Longest time the health check waits for the database before it reports DOWN. */
    private Duration timeout = Duration.ofSeconds(2);

    /** Maintenance that has not completed a pass for this long reports DOWN (when this instance runs it). */
    private Duration maintenanceStaleAfter = Duration.ofMinutes(1);

    /** A stream consumer this many events behind is reported in the health details as lagging. */
    private long maxConsumerLag = 10_000;

    /** A stream consumer whose oldest unconsumed event is this old is reported as lagging. */
    private Duration maxConsumerLagAge = Duration.ofMinutes(5);

    /** A transaction, replication slot or prepared transaction holding the xmin horizon this long is reported. */
    private Duration xminHorizonAge = Duration.ofMinutes(5);

    public Duration getTimeout() {
        return timeout;
    }

    public void setTimeout(Duration timeout) {
        this.timeout = timeout;
    }

    public Duration getMaintenanceStaleAfter() {
        return maintenanceStaleAfter;
    }

    public void setMaintenanceStaleAfter(Duration maintenanceStaleAfter) {
        this.maintenanceStaleAfter = maintenanceStaleAfter;
    }

    public long getMaxConsumerLag() {
        return maxConsumerLag;
    }

    public void setMaxConsumerLag(long maxConsumerLag) {
        this.maxConsumerLag = maxConsumerLag;
    }

    public Duration getMaxConsumerLagAge() {
        return maxConsumerLagAge;
    }

    public void setMaxConsumerLagAge(Duration maxConsumerLagAge) {
        this.maxConsumerLagAge = maxConsumerLagAge;
    }

    public Duration getXminHorizonAge() {
        return xminHorizonAge;
    }

    public void setXminHorizonAge(Duration xminHorizonAge) {
        this.xminHorizonAge = xminHorizonAge;
    }
}
