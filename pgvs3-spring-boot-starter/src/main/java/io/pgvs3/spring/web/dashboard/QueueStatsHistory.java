package io.pgvs3.spring.web.dashboard;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.pgvs3.spring.metrics.QueueStatsSampler;

/**
 * The latest samples of each queue's job states and consumer lag, kept in memory from the
 * {@link QueueStatsSampler}'s samples (one every {@code pgvs3.metrics.sample-interval}), so the dashboard can draw
 * them over time without a time-series database. A queue that leaves the samples (dropped) is forgotten.
 */
public class QueueStatsHistory {

    private final int capacity;
    private final Map<String, Deque<Sample>> samples = new ConcurrentHashMap<>();

    public QueueStatsHistory(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("the history keeps at least one sample, not " + capacity);
        }
        this.capacity = capacity;
    }

    /** Records one sample of every queue. */
    public void record(QueueStatsSampler.Snapshot snapshot) {
        if (snapshot.sampledAt() == null) {
            return;
        }
        samples.keySet().retainAll(snapshot.jobDepth().keySet());
        snapshot.jobDepth().forEach((queue, depth) -> {
            Map<String, QueueStatsSampler.ConsumerLag> lag = snapshot.lag().getOrDefault(queue, Map.of());
            Deque<Sample> queueSamples = samples.computeIfAbsent(queue, name -> new ArrayDeque<>());
            synchronized (queueSamples) {
                queueSamples.addLast(new Sample(snapshot.sampledAt(), Map.copyOf(depth), Map.copyOf(lag)));
                while (queueSamples.size() > capacity) {
                    queueSamples.removeFirst();
                }
            }
        });
    }

    /** The queue's samples, oldest first; empty for a queue not sampled yet. */
    public List<Sample> of(String queue) {
        Deque<Sample> queueSamples = samples.get(queue);
        if (queueSamples == null) {
            return List.of();
        }
        synchronized (queueSamples) {
            return List.copyOf(queueSamples);
        }
    }

    public int capacity() {
        return capacity;
    }

    /**
     * One sample of a queue.
     *
     * @param sampledAt when it was taken
     * @param jobs      job state → number of jobs
     * @param lag       consumer → lag
     */
    public record Sample(Instant sampledAt, Map<String, Long> jobs, Map<String, QueueStatsSampler.ConsumerLag> lag) {

        Map<String, Object> view() {
            Map<String, Object> lagView = new LinkedHashMap<>();
            lag.forEach((consumer, value) -> lagView.put(consumer,
                    Map.of("events", value.events(), "seconds", value.seconds())));
            Map<String, Object> view = new LinkedHashMap<>();
            view.put("time", sampledAt.toString());
            view.put("jobs", jobs);
            view.put("lag", lagView);
            return view;
        }
    }
}
