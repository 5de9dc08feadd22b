package io.pgvs3.spring.listener;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.core.Pgvs3Metrics;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.backoff.BackOff;

/**
 * Builds the containers for listener and handler endpoints from the shared infrastructure: stores, the
 * notification connection, polling and back-off settings, the transaction manager and metrics.
 */
public class Pgvs3ListenerContainerFactory {

    private final Supplier<StreamStore> streams;
    private final Supplier<JobStore> jobs;
    private final NotificationHub notifications;
    private final PollingSettings streamPolling;
    private final PollingSettings jobPolling;
    private final JobContainerSettings jobSettings;
    private final BackOff backOff;
    private final PlatformTransactionManager transactionManager;
    private final StreamMessageConverter defaultConverter;
    private final JsonMapper mapper;
    private final Pgvs3Metrics metrics;
    private final String instanceId;

    /**
     * @param streams            the stream store (asked for only when a stream listener exists)
     * @param jobs               the job store (asked for only when a job handler exists)
     * @param notifications      the shared LISTEN connection, or null to poll only
     * @param transactionManager the transaction manager, or null (transactional listeners then fail to start)
     */
    public Pgvs3ListenerContainerFactory(Supplier<StreamStore> streams, Supplier<JobStore> jobs,
            NotificationHub notifications, PollingSettings streamPolling, PollingSettings jobPolling,
            JobContainerSettings jobSettings, BackOff backOff, PlatformTransactionManager transactionManager,
            StreamMessageConverter defaultConverter, JsonMapper mapper, Pgvs3Metrics metrics, String instanceId) {
        this.streams = streams;
        this.jobs = jobs;
        this.notifications = notifications;
        this.streamPolling = streamPolling;
        this.jobPolling = jobPolling;
        this.jobSettings = jobSettings;
        this.backOff = backOff;
        this.transactionManager = transactionManager;
        this.defaultConverter = defaultConverter;
        this.mapper = mapper;
        this.metrics = metrics;
        this.instanceId = instanceId;
    }

    public StreamListenerContainer createStreamContainer(StreamListenerEndpoint endpoint) {
        StreamMessageConverter converter = endpoint.converter() != null ? endpoint.converter() : defaultConverter;
        StreamListenerMethodAdapter adapter = new StreamListenerMethodAdapter(endpoint.bean(), endpoint.method(),
                converter);
        return new StreamListenerContainer(endpoint, adapter, require(streams.get(), "StreamStore"), notifications,
                streamPolling, backOff, transactionManager, metrics, instanceId);
    }

    /** One container for all handlers of one queue. */
    public JobHandlerContainer createJobContainer(String id, String queue, List<JobHandlerEndpoint> endpoints) {
        Map<String, JobHandlerMethodAdapter> handlers = new LinkedHashMap<>();
        int concurrency = 0;
        for (JobHandlerEndpoint endpoint : endpoints) {
            JobHandlerMethodAdapter previous = handlers.put(endpoint.type(),
                    new JobHandlerMethodAdapter(endpoint.bean(), endpoint.method(), mapper));
            if (previous != null) {
                throw new IllegalStateException("Two @JobHandler methods handle type '" + endpoint.type()
                        + "' on queue " + queue + ": " + previous + " and " + endpoint.method());
            }
            concurrency += endpoint.concurrency();
        }
        return new JobHandlerContainer(id, queue, handlers, concurrency, jobSettings, require(jobs.get(), "JobStore"),
                notifications, jobPolling, metrics, instanceId + "/" + id);
    }

    private static <T> T require(T value, String what) {
        if (value == null) {
            throw new IllegalStateException("pgvs3 listeners need a " + what + " bean");
        }
        return value;
    }
}
