package io.pgvs3.spring.template;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.job.NewJob;
import io.pgvs3.core.job.RetryPolicy;
import io.pgvs3.spring.metrics.Pgvs3Metrics;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * Enqueues and looks up jobs from application code. Enqueues run on the application's {@code DataSource} and join
 * the caller's Spring transaction: a job enqueued inside a transaction exists only if that transaction commits.
 * <p>
 * A queue routed to another cluster ({@code pgvs3.clusters}) is enqueued to on that cluster's pool, in a transaction
 * of its own that commits at once: only queues of the default cluster join the caller's transaction. An
 * {@link #enqueueAll} must name queues of one cluster.
 * <p>
 * A job's {@code args} is a JSON array. {@code args} passed here becomes its single element, unless it is an
 * {@code Object[]}, whose elements become the array's elements (one per {@code @JobHandler} parameter); null gives
 * an empty array.
 */
public class JobTemplate {

    private final Function<String, JobStore> byQueue;
    private final Function<List<NewJob>, JobStore> byBatch;
    private final Function<String, Optional<Job>> finder;
    private final BiFunction<String, Function<JobStore, Job>, Job> byJobId;
    private final JsonMapper mapper;
    private final Pgvs3Metrics metrics;

    /** A template on one store. */
    public JobTemplate(JobStore store, JsonMapper mapper, Pgvs3Metrics metrics) {
        this.byQueue = queue -> store;
        this.byBatch = jobs -> store;
        this.finder = store::get;
        this.byJobId = (id, operation) -> operation.apply(store);
        this.mapper = mapper;
        this.metrics = metrics;
    }

    /** A template enqueueing each job on its queue's cluster and finding jobs by id on theirs. */
    public JobTemplate(ClusterRouter router, JsonMapper mapper, Pgvs3Metrics metrics) {
        this.byQueue = queue -> router.forQueue(queue).jobs();
        this.byBatch = jobs -> router.forBatch(jobs).jobs();
        this.finder = router::findJob;
        this.byJobId = router::withJob;
        this.mapper = mapper;
        this.metrics = metrics;
    }

    public Job enqueue(String type, Object args) {
        return enqueue(type, args, JobOptions.defaults());
    }

    public Job enqueue(String type, Object args, JobOptions options) {
        NewJob newJob = toNew(new JobRequest(type, args, options));
        Job job = byQueue.apply(newJob.queue().value()).enqueue(newJob);
        AfterCommit.run(() -> metrics.enqueued(job.queue(), 1));
        return job;
    }

    /** Enqueues all jobs atomically. The jobs answered are built from what was sent when they are first read. */
    public List<Job> enqueueAll(List<JobRequest> requests) {
        List<NewJob> jobs = new ArrayList<>(requests.size());
        for (JobRequest request : requests) {
            jobs.add(toNew(request));
        }
        List<Job> enqueued = byBatch.apply(jobs).enqueueBatch(jobs);
        // counted from the requests: the jobs answered are built only when the caller reads them
        Map<String, Integer> perQueue = new LinkedHashMap<>();
        jobs.forEach(job -> perQueue.merge(job.queue().value(), 1, Integer::sum));
        AfterCommit.run(() -> perQueue.forEach(metrics::enqueued));
        return enqueued;
    }

    public Optional<Job> get(String id) {
        return finder.apply(id);
    }

    /** Cancels a job that has not finished; a finished job answers {@code conflict}. */
    public Job cancel(String id) {
        return byJobId.apply(id, store -> store.cancel(id));
    }

    private NewJob toNew(JobRequest request) {
        JobOptions options = request.options() == null ? JobOptions.defaults() : request.options();
        NewJob.Builder builder = NewJob.builder(request.type()).args(argsJson(request.args()));
        if (options.queue() != null) {
            builder.queue(options.queue());
        }
        if (options.priority() != null) {
            builder.priority(options.priority());
        }
        if (options.delay() != null) {
            builder.delay(options.delay());
        }
        if (options.scheduledAt() != null) {
            builder.scheduledAt(options.scheduledAt());
        }
        if (options.id() != null) {
            builder.id(options.id());
        }
        if (options.retry() != null) {
            JobOptions.Retry retry = options.retry();
            builder.retry(new RetryPolicy(retry.maxAttempts(), retry.initialInterval(), retry.backoffCoefficient(),
                    retry.maxInterval(), retry.jitter(), retry.backoffStrategy(), retry.nonRetryableErrors(),
                    retry.onExhaustion()));
        }
        else if (options.maxAttempts() != null) {
            builder.retry(RetryPolicy.DEFAULT.withMaxAttempts(options.maxAttempts()));
        }
        if (options.unique() != null) {
            builder.unique(options.unique());
        }
        if (!options.meta().isEmpty()) {
            builder.meta(json(options.meta()));
        }
        return builder.build();
    }

    private String argsJson(Object args) {
        if (args == null) {
            return "[]";
        }
        return json(args instanceof Object[] array ? Arrays.asList(array) : List.of(args));
    }

    private String json(Object value) {
        try {
            return mapper.writeValueAsString(value);
        }
        catch (JacksonException ex) {
            throw new IllegalArgumentException("Cannot write job arguments as JSON: " + ex.getOriginalMessage(), ex);
        }
    }

    /**
     * One job of a batch enqueue.
     *
     * @param type    the job type
     * @param args    the arguments (see {@link JobTemplate})
     * @param options the options, or null for the defaults
     */
    public record JobRequest(String type, Object args, JobOptions options) {

        public static JobRequest of(String type, Object args) {
            return new JobRequest(type, args, JobOptions.defaults());
        }
    }
}
