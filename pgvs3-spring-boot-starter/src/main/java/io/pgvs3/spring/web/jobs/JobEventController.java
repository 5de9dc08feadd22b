package io.pgvs3.spring.web.jobs;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import io.pgvs3.core.cluster.ClusterRouter;
import io.pgvs3.core.job.JobEvent;
import io.pgvs3.core.job.JobEventPage;
import io.pgvs3.spring.web.Pagination;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /ojs/v1/events?types=a,b&queues=q&after=<id>&limit=n}: job lifecycle events, oldest first, as
 * CloudEvents-shaped objects. Pass {@code next_after} as {@code after} to read on: with a filter it can lie past the
 * last event listed, as a filtered page looks at a bounded number of events (see {@link JobEventPage}). Event ids
 * count per cluster: with {@code queues} on another cluster the events are that cluster's (queues on two clusters
 * are refused), and without {@code queues} they are the default cluster's.
 */
@RestController
public class JobEventController {

    static final int MAX_LIMIT = 1000;

    private final ClusterRouter router;
    private final JsonMapper mapper;

    public JobEventController(ClusterRouter router, JsonMapper mapper) {
        this.router = router;
        this.mapper = mapper;
    }

    @GetMapping("/ojs/v1/events")
    public Map<String, Object> list(@RequestParam(required = false) String types,
            @RequestParam(required = false) String queues, @RequestParam(defaultValue = "0") long after,
            @RequestParam(defaultValue = "100") int limit) {
        Pagination.checkLimit(limit, MAX_LIMIT);
        Set<String> queueFilter = split(queues);
        // event ids count per cluster, so one cursor reads one cluster: the queues' own, else the default one
        JobEventPage page = router.forAll(queueFilter, "an event filter").jobEvents()
                .page(split(types), queueFilter, after, limit);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("events", page.events().stream().map(this::view).toList());
        body.put("next_after", page.nextAfter());
        return body;
    }

    private Map<String, Object> view(JobEvent event) {
        Map<String, Object> view = new LinkedHashMap<>();
        view.put("specversion", "1.0");
        view.put("id", String.valueOf(event.id()));
        view.put("type", event.type());
        view.put("source", "/ojs/queues/" + event.queue());
        view.put("time", event.occurredAt().toString());
        view.put("subject", event.jobId());
        view.put("datacontenttype", "application/json");
        view.put("data", mapper.readTree(event.dataJson()));
        return view;
    }

    private static Set<String> split(String csv) {
        if (csv == null || csv.isBlank()) {
            return Set.of();
        }
        return Arrays.stream(csv.split(",")).map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toSet());
    }
}
