package io.pgvs3.bench;

import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Latencies recorded in microseconds with three significant digits, read back in milliseconds.
 */
public final class Latency {

    private final Histogram histogram = new ConcurrentHistogram(3);

    public void recordNanos(long nanos) {
        histogram.recordValue(Math.max(0, nanos / 1_000));
    }

    public void recordMicros(long micros) {
        histogram.recordValue(Math.max(0, micros));
    }

    public void reset() {
        histogram.reset();
    }

    public long count() {
        return histogram.getTotalCount();
    }

    public double percentileMillis(double percentile) {
        return histogram.getValueAtPercentile(percentile) / 1_000.0;
    }

    public double maxMillis() {
        return histogram.getMaxValue() / 1_000.0;
    }
}
