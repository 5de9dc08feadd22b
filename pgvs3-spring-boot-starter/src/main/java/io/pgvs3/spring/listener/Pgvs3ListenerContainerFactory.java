package io.pgvs3.spring.listener;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.pgvs3.core.cluster.Cluster;
import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.backoff.BackOff;

/**
 * Builds the containers for listener and handler endpoints from the shared infrastructure (stores, the
 * notification connection, the transaction manager, metrics) and from settings of its own: polling, job leases,
 * the error handler, the payload converter and the default batch size.
 * <p>
 * The auto-configured factory is the bean {@code pgvs3ListenerContainerFactory}. An application can declare more
 * factories, usually as {@link #copy() copies} of it with some settings changed, and name one in the
 * {@code containerFactory} attribute of {@code @StreamListener} or {@code @JobHandler}.
 */
public class Pgvs3ListenerContainerFactory {

    private final Supplier<StreamStore> streams;
    private final Supplier<JobStore> jobs;
    private final NotificationHub notifications;
    private final JsonMapper mapper;
    private final Pgvs3Metrics metrics;
    private final String instanceId;
    private PollingSettings streamPolling;
    private PollingSettings jobPolling;
    private JobContainerSettings jobSettings;
    private ListenerErrorHandler errorHandler;
    private PlatformTransactionManager transactionManager;
    private StreamMessageConverter defaultConverter;
    private Integer maxBatchSize;
    private ClusterRouter clusterRouter;

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
        this(streams, jobs, notifications, streamPolling, jobPolling, jobSettings,
                new DefaultListenerErrorHandler(backOff), transactionManager, defaultConverter, mapper, metrics,
                instanceId);
    }

    public Pgvs3ListenerContainerFactory(Supplier<StreamStore> streams, Supplier<JobStore> jobs,
            NotificationHub notifications, PollingSettings streamPolling, PollingSettings jobPolling,
            JobContainerSettings jobSettings, ListenerErrorHandler errorHandler,
            PlatformTransactionManager transactionManager, StreamMessageConverter defaultConverter,
            JsonMapper mapper, Pgvs3Metrics metrics, String instanceId) {
        this.streams = streams;
        this.jobs = jobs;
        this.notifications = notifications;
        this.streamPolling = streamPolling;
        this.jobPolling = jobPolling;
        this.jobSettings = jobSettings;
        this.errorHandler = errorHandler;
        this.transactionManager = transactionManager;
        this.defaultConverter = defaultConverter;
        this.mapper = mapper;
        this.metrics = metrics;
        this.instanceId = instanceId;
    }

    /** A factory with the same infrastructure and settings, whose settings can then be changed on their own. */
    public Pgvs3ListenerContainerFactory copy() {
        Pgvs3ListenerContainerFactory copy = new Pgvs3ListenerContainerFactory(streams, jobs, notifications,
                streamPolling, jobPolling, jobSettings, errorHandler, transactionManager, defaultConverter, mapper,
                metrics, instanceId);
        copy.maxBatchSize = maxBatchSize;
        copy.clusterRouter = clusterRouter;
        return copy;
    }

    /** The error handler of listeners that do not name one. */
    public void setErrorHandler(ListenerErrorHandler errorHandler) {
        this.errorHandler = errorHandler;
    }

    public ListenerErrorHandler getErrorHandler() {
        return errorHandler;
    }

    public void setStreamPolling(PollingSettings streamPolling) {
        this.streamPolling = streamPolling;
    }

    public PollingSettings getStreamPolling() {
        return streamPolling;
    }

    public void setJobPolling(PollingSettings jobPolling) {
        this.jobPolling = jobPolling;
    }

    public void setJobSettings(JobContainerSettings jobSettings) {
        this.jobSettings = jobSettings;
    }

    public JobContainerSettings getJobSettings() {
        return jobSettings;
    }

    public void setTransactionManager(PlatformTransactionManager transactionManager) {
        this.transactionManager = transactionManager;
    }

    /** The converter of stream listeners that do not name one. */
    public void setMessageConverter(StreamMessageConverter converter) {
        this.defaultConverter = converter;
    }

    /** The batch size of stream listeners that leave {@code maxBatchSize} empty; null for the global default. */
    public void setMaxBatchSize(Integer maxBatchSize) {
        if (maxBatchSize != null && (maxBatchSize < 1 || maxBatchSize > StreamStore.MAX_RECEIVE)) {
            throw new IllegalArgumentException("maxBatchSize must be between 1 and " + StreamStore.MAX_RECEIVE);
        }
        this.maxBatchSize = maxBatchSize;
    }

    public Integer getMaxBatchSize() {
        return maxBatchSize;
    }

    public String getInstanceId() {
        return instanceId;
    }

    /**
     * Routes queues to clusters ({@code pgvs3.clusters}): a listener of a queue on another cluster uses that
     * cluster's stores and LISTEN connection. Null (the default) serves every queue from the factory's own stores.
     */
    public void setClusterRouter(ClusterRouter clusterRouter) {
        this.clusterRouter = clusterRouter;
    }

    /** The queue's cluster when it is not the default one, else null (then the factory's own stores serve it). */
    private Cluster otherCluster(String queue) {
        if (clusterRouter == null) {
            return null;
        }
        Cluster cluster = clusterRouter.forQueue(queue);
        return cluster.isDefault() ? null : cluster;
    }

    public StreamListenerContainer createStreamContainer(StreamListenerEndpoint endpoint) {
        StreamMessageConverter converter = endpoint.converter() != null ? endpoint.converter() : defaultConverter;
        StreamListenerMethodAdapter adapter = new StreamListenerMethodAdapter(endpoint.bean(), endpoint.method(),
                converter);
        ListenerErrorHandler handler = endpoint.errorHandler() != null ? endpoint.errorHandler() : errorHandler;
        Cluster cluster = otherCluster(endpoint.queue());
        if (cluster == null) {
            return new StreamListenerContainer(endpoint, adapter, require(streams.get(), "StreamStore"), notifications,
                    streamPolling, handler, transactionManager, metrics, instanceId);
        }
        if (endpoint.transactional()) {
            throw new IllegalStateException("@StreamListener " + endpoint.id() + " is transactional, but its queue "
                    + endpoint.queue() + " is on cluster '" + cluster.name() + "': a listener's transaction can only"
                    + " cover the application's own DataSource (the default cluster)");
        }
        return new StreamListenerContainer(endpoint, adapter, cluster.streams(),
                notifications == null ? null : cluster.notifications(), streamPolling, handler, transactionManager,
                metrics, instanceId);
    }

    /** One container for all handlers of one queue. */
    public JobHandlerContainer createJobContainer(String id, String queue, List<JobHandlerEndpoint> endpoints) {
        Map<String, JobHandlerMethodAdapter> handlers = new LinkedHashMap<>();
        Map<String, ListenerErrorHandler> errorHandlers = new LinkedHashMap<>();
        int concurrency = 0;
        for (JobHandlerEndpoint endpoint : endpoints) {
            JobHandlerMethodAdapter previous = handlers.put(endpoint.type(),
                    new JobHandlerMethodAdapter(endpoint.bean(), endpoint.method(), mapper));
            if (previous != null) {
                throw new IllegalStateException("Two @JobHandler methods handle type '" + endpoint.type()
                        + "' on queue " + queue + ": " + previous + " and " + endpoint.method());
            }
            if (endpoint.errorHandler() != null) {
                errorHandlers.put(endpoint.type(), endpoint.errorHandler());
            }
            concurrency += endpoint.concurrency();
        }
        Cluster cluster = otherCluster(queue);
        return new JobHandlerContainer(id, queue, handlers, errorHandlers, errorHandler, concurrency, jobSettings,
                cluster == null ? require(jobs.get(), "JobStore") : cluster.jobs(),
                cluster == null || notifications == null ? notifications : cluster.notifications(), jobPolling,
                metrics, instanceId + "/" + id);
    }

    private static <T> T require(T value, String what) {
        if (value == null) {
            throw new IllegalStateException("pgvs3 listeners need a " + what + " bean");
        }
        return value;
    }
}
