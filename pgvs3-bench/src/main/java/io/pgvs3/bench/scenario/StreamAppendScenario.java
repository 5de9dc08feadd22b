package io.pgvs3.bench.scenario;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import io.pgvs3.bench.BenchContext;
import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.BenchOptions;
import io.pgvs3.bench.Comparison;
import io.pgvs3.bench.Load;
import io.pgvs3.bench.Payloads;
import io.pgvs3.bench.Scenario;
import io.pgvs3.bench.pgvs3.BenchApplication;
import io.pgvs3.bench.pgvs3.Http;
import io.pgvs3.spring.template.OutgoingMessage;
import io.pgvs3.spring.template.StreamTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Scenario 2: appending to a stream through the starter's {@code StreamTemplate} and over HTTP.
 */
public final class StreamAppendScenario implements Scenario {

    public static final List<Integer> TEMPLATE_BATCHES = List.of(1, 100, 1000);
    public static final int HTTP_SINGLE_CLIENTS = 8;
    public static final int HTTP_BATCH_CLIENTS = 2;
    public static final int HTTP_BATCH = 1000;

    private static final String QUEUE = "bench-append";

    /** The template batches also measured with a distinct dedupe key per message. */
    public static final List<Integer> KEYED_BATCHES = List.of(1, 1000);

    public static String templateMetric(int batch, boolean sync) {
        return "streams.append.template.b" + batch + "." + Sync.id(sync);
    }

    public static String keyedTemplateMetric(int batch, boolean sync) {
        return "streams.append.template.keyed.b" + batch + "." + Sync.id(sync);
    }

    public static final String HTTP_SINGLE = "streams.append.http.single.c" + HTTP_SINGLE_CLIENTS + ".sync_on";

    public static final String HTTP_BATCH_METRIC = "streams.append.http.b" + HTTP_BATCH + ".c" + HTTP_BATCH_CLIENTS
            + ".sync_on";

    @Override
    public String id() {
        return "streams-append";
    }

    @Override
    public String title() {
        return "2. Stream append";
    }

    @Override
    public String description(BenchOptions options) {
        return """
                *Template*: `StreamTemplate.append` (one message) and `StreamTemplate.appendAll` (100 or 1000 \
                messages, one atomic append) from a Spring Boot application with the starter, one client thread, \
                payload a Jackson `JsonNode` of %d bytes; each call is one transaction. *Keyed*: the same appends of 1 \
                and 1000 per call right after, on the same queue, each message with a dedupe key never used before \
                (about 45 characters), so every key goes into the unique index. \
                *HTTP*: the starter's \
                routes in the same JVM on Tomcat: `POST /ojs/v1/queues/{q}/messages` from %d client threads and \
                `POST /ojs/v1/queues/{q}/messages/batch` with %d messages from %d client threads \
                (a lean HTTP/1.1 client: one keep-alive loopback connection per thread on a blocking socket). Compared with the multi-row INSERT baseline of the same batch size \
                and `synchronous_commit`."""
                .formatted(Payloads.SIZE_BYTES, HTTP_SINGLE_CLIENTS, HTTP_BATCH, HTTP_BATCH_CLIENTS);
    }

    @Override
    public List<Comparison> comparisons() {
        List<Comparison> comparisons = new ArrayList<>();
        for (boolean sync : Sync.BOTH) {
            for (int batch : TEMPLATE_BATCHES) {
                comparisons.add(new Comparison("template append, " + batch + " per call ÷ multi-row INSERT of "
                        + batch + " (" + Sync.setting(sync) + ")", templateMetric(batch, sync),
                        BaselineScenario.insertMetric(batch, sync)));
            }
            for (int batch : KEYED_BATCHES) {
                comparisons.add(new Comparison("template append with a dedupe key per message ÷ without, " + batch
                        + " per call (" + Sync.setting(sync) + ")", keyedTemplateMetric(batch, sync),
                        templateMetric(batch, sync)));
            }
        }
        comparisons.add(new Comparison("HTTP append, 1 per request, " + HTTP_SINGLE_CLIENTS + " clients ÷ single-row "
                + "commit (8 clients)", HTTP_SINGLE, BaselineScenario.commitMetric(8, true)));
        comparisons.add(new Comparison("HTTP append, 1 per request, " + HTTP_SINGLE_CLIENTS + " clients ÷ single-row "
                + "commit with pg_notify (8 clients)", HTTP_SINGLE, BaselineScenario.notifyCommitMetric(8, true)));
        comparisons.add(new Comparison("HTTP batch append of " + HTTP_BATCH + " ÷ multi-row INSERT of " + HTTP_BATCH,
                HTTP_BATCH_METRIC, BaselineScenario.insertMetric(HTTP_BATCH, true)));
        return comparisons;
    }

    @Override
    public void run(BenchContext context) throws Exception {
        JsonMapper mapper = new JsonMapper();
        List<JsonNode> payloads = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            payloads.add(mapper.readTree(Payloads.json()));
        }
        for (boolean sync : Sync.variants(context.options())) {
            try (BenchDatabase database = context.newDatabase();
                    BenchApplication.Running app = BenchApplication.start(database, sync, false, Map.of())) {
                StreamTemplate template = app.bean(StreamTemplate.class);
                template.append(QUEUE, Payloads.TYPE, payloads.get(0));
                for (int batch : TEMPLATE_BATCHES) {
                    context.resetStatements();
                    double rate = Load.rate(1, context.warmup(), context.measure(), index -> () -> {
                        if (batch == 1) {
                            template.append(QUEUE, Payloads.TYPE, payloads.get(0));
                            return 1;
                        }
                        List<OutgoingMessage> messages = new ArrayList<>(batch);
                        for (int i = 0; i < batch; i++) {
                            messages.add(OutgoingMessage.of(Payloads.TYPE, payloads.get(i % payloads.size())));
                        }
                        return template.appendAll(QUEUE, messages).size();
                    });
                    context.record(templateMetric(batch, sync), "StreamTemplate append, " + batch + " per call",
                            "events/s", rate, "clients=1 batch=" + batch + " " + Sync.setting(sync));
                    context.profile(database, "template append " + batch + " " + Sync.setting(sync));
                    if (KEYED_BATCHES.contains(batch)) {
                        measureKeyed(context, database, template, payloads, batch, sync);
                    }
                }
            }
        }
        try (BenchDatabase database = context.newDatabase();
                BenchApplication.Running app = BenchApplication.start(database, true, true, Map.of())) {
            String single = "{\"type\":\"" + Payloads.TYPE + "\",\"payload\":" + Payloads.json() + "}";
            new Http(app.baseUrl()).post("/ojs/v1/queues/" + QUEUE + "/messages", single);
            context.resetStatements();
            double rate = Load.rate(HTTP_SINGLE_CLIENTS, context.warmup(), context.measure(), index -> {
                Http http = new Http(app.baseUrl());
                return () -> {
                    http.post("/ojs/v1/queues/" + QUEUE + "/messages", single);
                    return 1;
                };
            });
            context.record(HTTP_SINGLE, "HTTP append, 1 message per request", "events/s", rate,
                    "clients=" + HTTP_SINGLE_CLIENTS + " batch=1 " + Sync.setting(true));
            context.profile(database, "HTTP append single");

            StringBuilder body = new StringBuilder("{\"messages\":[");
            for (int i = 0; i < HTTP_BATCH; i++) {
                body.append(i == 0 ? "" : ",").append("{\"type\":\"").append(Payloads.TYPE).append("\",\"payload\":")
                        .append(Payloads.json()).append('}');
            }
            String batch = body.append("]}").toString();
            context.resetStatements();
            rate = Load.rate(HTTP_BATCH_CLIENTS, context.warmup(), context.measure(), index -> {
                Http http = new Http(app.baseUrl());
                return () -> {
                    http.post("/ojs/v1/queues/" + QUEUE + "/messages/batch", batch);
                    return HTTP_BATCH;
                };
            });
            context.record(HTTP_BATCH_METRIC, "HTTP batch append, " + HTTP_BATCH + " messages per request",
                    "events/s", rate, "clients=" + HTTP_BATCH_CLIENTS + " batch=" + HTTP_BATCH + " "
                            + Sync.setting(true));
            context.profile(database, "HTTP append batch");
        }
    }

    /**
     * The same appends, right after the keyless ones on the same queue, each message with a key never used before
     * (an idempotent producer's first attempt: every key is probed and stored).
     */
    private static void measureKeyed(BenchContext context, BenchDatabase database, StreamTemplate template,
            List<JsonNode> payloads, int batch, boolean sync) throws Exception {
        String prefix = UUID.randomUUID() + "-";
        AtomicLong keys = new AtomicLong();
        context.resetStatements();
        double rate = Load.rate(1, context.warmup(), context.measure(), index -> () -> {
            if (batch == 1) {
                template.append(QUEUE, OutgoingMessage.of(Payloads.TYPE, payloads.get(0))
                        .withDedupeKey(prefix + keys.incrementAndGet()));
                return 1;
            }
            List<OutgoingMessage> messages = new ArrayList<>(batch);
            for (int i = 0; i < batch; i++) {
                messages.add(OutgoingMessage.of(Payloads.TYPE, payloads.get(i % payloads.size()))
                        .withDedupeKey(prefix + keys.incrementAndGet()));
            }
            return template.appendAll(QUEUE, messages).size();
        });
        context.record(keyedTemplateMetric(batch, sync), "StreamTemplate append with dedupe keys, " + batch
                + " per call", "events/s", rate, "clients=1 batch=" + batch + " keyed " + Sync.setting(sync));
        context.profile(database, "template append keyed " + batch + " " + Sync.setting(sync));
    }
}
