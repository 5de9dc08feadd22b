package io.pgvs3.bench.scenario;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.pgvs3.bench.BenchContext;
import io.pgvs3.bench.BenchDatabase;
import io.pgvs3.bench.BenchOptions;
import io.pgvs3.bench.JitWatch;
import io.pgvs3.bench.Latency;
import io.pgvs3.bench.Scenario;
import io.pgvs3.bench.pgvs3.BenchApplication;
import io.pgvs3.core.catalog.QueueName;
import io.pgvs3.core.notify.NotificationHub;
import io.pgvs3.core.stream.NewStreamMessage;
import io.pgvs3.core.stream.StreamStore;

/**
 * Scenario 5: many {@code wait_ms} long-polls at once, each on a queue of its own.
 */
public final class StreamLongPollScenario implements Scenario {

    public static final int WAIT_MS = 3000;

    /** The receives are sent 2 ms apart: 500 of them within a second. */
    static final long SEND_GAP_MICROS = 2000;

    /**
     * Receives woken by an append (one after another); they wait longer, so that only an append ends them. They are
     * spread evenly through the order in which the receives are sent (every 25th of 500), so that which queues the
     * server favours by arrival (the wake lane warms the first ones) does not decide the figure.
     */
    static final int WOKEN = 20;
    static final int WOKEN_WAIT_MS = 20_000;
    /** Receives on a queue of their own sent together in each round of the warm-up, into a short wait_ms. */
    static final int WARM_UP = 20;
    /** Receives woken by an append in each round of the warm-up, each on a queue of its own. */
    static final int WARM_UP_WOKEN = 4;
    static final Duration WARM_UP_LIMIT = Duration.ofSeconds(30);
    private static final Pattern BATCH_ID = Pattern.compile("\"batch_id\"\\s*:\\s*(\\d+)");

    public static final String LATE_P50 = "streams.long-poll.late.p50";
    public static final String LATE_MAX = "streams.long-poll.late.max";
    public static final String INTAKE_MAX = "streams.long-poll.intake.max";
    public static final String LATE_SERVER_MAX = "streams.long-poll.late-from-listen.max";
    public static final String WAKE_P50 = "streams.long-poll.wake.p50";
    public static final String WAKE_MAX = "streams.long-poll.wake.max";
    public static final String HEALTH_P99 = "streams.long-poll.health.p99";
    public static final String LISTENERS = "streams.long-poll.listen-connections";

    @Override
    public String id() {
        return "streams-long-poll";
    }

    @Override
    public String title() {
        return "5. Concurrent long-polls";
    }

    @Override
    public String description(BenchOptions options) {
        return """
                The HTTP routes of a Spring Boot application (default settings, 200 Tomcat threads). %,d queues, \
                each with one consumer, are created first (not timed). A warm-up runs the same requests on queues of their own, in rounds of \
                %d receives sent together into `wait_ms: 100` and %d woken by an append, until the JVM's JIT \
                compilers have settled (at most 2%% of a 2-second window compiling; at least the warm-up time, at \
                most 30 s), so that the measured requests neither wait for the class loader nor run beside the \
                compilers; its woken queues are the first to wait, so they hold %d of the wake lane's places. Then %,d `receive` calls with `wait_ms` are \
                sent 2 ms apart (a burst of connects would overflow Tomcat's accept queue of 100 and measure the \
                kernel's SYN retries), one per queue, each on its own connection (`java.net.http`): %d of them with \
                `wait_ms: %,d`, spread evenly through the sending order (every %dth sent), are woken one after \
                another by an append to their queue (the time from the append's \
                return to the receive's answer), the others wait `wait_ms: %,d` on empty queues (how long past \
                `wait_ms` each is answered, counted from when it was sent, so the server's intake of all of them is \
                included; a second figure counts from when the receive's queue was seen LISTENed to, at most 50 ms after \
                the server took the receive). Meanwhile one connection sends `GET /ojs/v1/health` in a loop once every channel is \
                LISTENed to; `pg_stat_activity` counts the connections named `%s`."""
                .formatted(queues(options), WARM_UP, WARM_UP_WOKEN, WARM_UP_WOKEN, queues(options), WOKEN, WOKEN_WAIT_MS, queues(options) / WOKEN, WAIT_MS,
                        NotificationHub.APPLICATION_NAME);
    }

    /** Which queue's receive is sent at each position: the woken ones (0 to WOKEN - 1) at every stride-th. */
    static int[] sendOrder(int queues) {
        int stride = queues / WOKEN;
        int[] order = new int[queues];
        int next = WOKEN;
        for (int slot = 0; slot < queues; slot++) {
            order[slot] = slot % stride == 0 && slot / stride < WOKEN ? slot / stride : next++;
        }
        return order;
    }

    static int queues(BenchOptions options) {
        return options.smoke() ? 40 : 500;
    }

    @Override
    public void run(BenchContext context) throws Exception {
        int queues = queues(context.options());
        try (BenchDatabase database = context.newDatabase();
                BenchApplication.Running app = BenchApplication.start(database, true, true,
                        Map.of("server.address", "127.0.0.1", "pgvs3.streams.max-wait", "30s"))) {
            StreamStore streams = app.bean(StreamStore.class);
            NotificationHub hub = app.bean(NotificationHub.class);
            ExecutorService creators = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> created = new ArrayList<>();
                for (int i = 0; i < queues; i++) {
                    String queue = queue(i);
                    created.add(creators.submit(() -> streams.subscribe(queue, "c", null)));
                }
                for (Future<?> future : created) {
                    future.get(10, TimeUnit.MINUTES);
                }
            }
            finally {
                creators.shutdownNow();
            }

            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(30)).build();
            // the woken receives have a client of their own: one client reads all its connections on one selector
            // thread, and a woken receive's answer would otherwise be stamped only after the answers of the others
            // read before it (all of them when the wake-ups run into their deadlines)
            HttpClient wokenClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                    .connectTimeout(Duration.ofSeconds(30)).build();
            Duration warmedFor = warmUp(app.baseUrl(), streams, hub, context.options());
            long[] sent = new long[queues];
            long[] listened = new long[queues];
            Thread monitor = new Thread(() -> watchListening(hub, listened), "long-poll-monitor");
            monitor.setDaemon(true);
            monitor.start();
            long first = System.nanoTime();
            long[] answered = new long[queues];
            @SuppressWarnings("unchecked")
            CompletableFuture<HttpResponse<String>>[] polls = new CompletableFuture[queues];
            int[] order = sendOrder(queues);
            for (int slot = 0; slot < queues; slot++) {
                int i = order[slot];
                int index = i;
                int wait = i < WOKEN ? WOKEN_WAIT_MS : WAIT_MS;
                HttpRequest request = HttpRequest.newBuilder(URI.create(app.baseUrl() + "/ojs/v1/queues/" + queue(i)
                        + "/receive")).header("Content-Type", "application/json").timeout(Duration.ofSeconds(90))
                        .POST(HttpRequest.BodyPublishers.ofString("{\"consumer\":\"c\",\"wait_ms\":" + wait + "}"))
                        .build();
                // paced, not all in the same instant: a burst of connects overflows the listen backlog (100), and the
            // kernel's SYN retry (1 s, then 3 s) would be measured instead of the server
            long due = first + TimeUnit.MICROSECONDS.toNanos((long) slot * SEND_GAP_MICROS);
            while (System.nanoTime() < due) {
                LockSupport.parkNanos(due - System.nanoTime());
            }
            sent[i] = System.nanoTime();
                polls[i] = (i < WOKEN ? wokenClient : client).sendAsync(request, HttpResponse.BodyHandlers.ofString())
                        .whenComplete((response, error) -> answered[index] = System.nanoTime());
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!allListening(hub, queues) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            if (!allListening(hub, queues)) {
                throw new IllegalStateException("not every queue's channel was LISTENed to within 30 s");
            }
            monitor.join(1000);
            Latency intake = new Latency();
            for (int i = 0; i < queues; i++) {
                intake.recordNanos(Math.max(0, listened[i] - sent[i]));
            }
            long listeners = database.queryLong("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                    + "current_database() AND application_name = '" + NotificationHub.APPLICATION_NAME + "'");

            Latency health = new Latency();
            Latency wake = new Latency();
            HttpRequest healthRequest = HttpRequest.newBuilder(URI.create(app.baseUrl() + "/ojs/v1/health")).GET()
                    .build();
            HttpClient healthClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            for (int i = 0; i < WOKEN; i++) {
                streams.append(queue(i), NewStreamMessage.of("t", "{\"i\":" + i + "}"));
                long committed = System.nanoTime();
                HttpResponse<String> response = polls[i].get(30, TimeUnit.SECONDS);
                if (!response.body().contains("\"seq\"")) {
                    throw new IllegalStateException("receive " + i + " was not woken by its append: "
                            + response.body());
                }
                wake.recordNanos(Math.max(0, answered[i] - committed));
                health.recordNanos(health(healthClient, healthRequest));
            }
            while (Arrays.stream(polls).anyMatch(poll -> !poll.isDone())
                    && System.nanoTime() - first < TimeUnit.MILLISECONDS.toNanos(WAIT_MS - 100)) {
                health.recordNanos(health(healthClient, healthRequest));
                Thread.sleep(10);
            }
            Latency late = new Latency();
            Latency lateServer = new Latency();
            for (int i = WOKEN; i < queues; i++) {
                HttpResponse<String> response = polls[i].get(60, TimeUnit.SECONDS);
                if (response.statusCode() != 200) {
                    throw new IllegalStateException("receive " + i + ": " + response.statusCode() + " "
                            + response.body());
                }
                long past = Math.max(0, answered[i] - sent[i] - TimeUnit.MILLISECONDS.toNanos(WAIT_MS));
                late.recordNanos(past);
                lateServer.recordNanos(Math.max(0, answered[i] - listened[i] - TimeUnit.MILLISECONDS.toNanos(WAIT_MS)));
            }
            String settings = "queues=" + queues + " wait_ms=" + WAIT_MS
                    + String.format(" warm-up %.1f s", warmedFor.toMillis() / 1e3);
            context.record(LATE_P50, "answer past wait_ms, p50", "ms", late.percentileMillis(50), settings);
            context.record(LATE_MAX, "answer past wait_ms, max", "ms", late.maxMillis(), settings);
            context.record(INTAKE_MAX, "receive sent → its queue LISTENed to, max", "ms", intake.maxMillis(),
                    settings);
            context.record(LATE_SERVER_MAX, "answer past wait_ms counted from its queue's LISTEN, max", "ms",
                    lateServer.maxMillis(), settings);
            context.record(WAKE_P50, "append → waiting receive answered, p50", "ms", wake.percentileMillis(50),
                    settings + " woken=" + WOKEN);
            context.record(WAKE_MAX, "append → waiting receive answered, max", "ms", wake.maxMillis(),
                    settings + " woken=" + WOKEN);
            context.record(HEALTH_P99, "GET /ojs/v1/health while they wait, p99", "ms", health.percentileMillis(99),
                    settings + " requests=" + health.count());
            context.record(LISTENERS, "LISTEN connections while they wait", "", listeners, settings);
        }
    }

    /**
     * Runs rounds of the scenario's requests on queues of their own (so no measured queue is touched) until the JIT
     * compilers have settled (at least the warm-up time, at most {@link #WARM_UP_LIMIT}; one round in a smoke run):
     * each round {@link #WARM_UP} receives that run into a short {@code wait_ms}, {@link #WARM_UP_WOKEN} that an
     * append wakes, and a health check. A freshly started application loads the classes of its request path on its
     * first requests, and with hundreds arriving at once every request thread waits on the class loader for seconds;
     * and without the rounds the measured wake-ups ran the wake path for the first time, beside the compilers. The
     * woken warm-up queues are the first to wait, so they hold that many of the wake lane's places. Answers how long
     * it ran.
     */
    private static Duration warmUp(String baseUrl, StreamStore streams, NotificationHub hub, BenchOptions options)
            throws Exception {
        String queue = "long-poll-warm-up";
        streams.subscribe(queue, "c", null);
        List<String> woken = new ArrayList<>();
        for (int i = 0; i < WARM_UP_WOKEN; i++) {
            woken.add(queue + "-woken-" + i);
            streams.subscribe(woken.get(i), "c", null);
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(30)).build();
        HttpRequest healthRequest = HttpRequest.newBuilder(URI.create(baseUrl + "/ojs/v1/health")).GET().build();
        JitWatch jit = new JitWatch(options.warmup());
        long deadline = System.nanoTime() + WARM_UP_LIMIT.toNanos();
        do {
            List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
            for (int i = 0; i < WARM_UP; i++) {
                waiting.add(client.sendAsync(receive(baseUrl, queue, 100), HttpResponse.BodyHandlers.ofString()));
            }
            List<CompletableFuture<HttpResponse<String>>> wakeable = new ArrayList<>();
            for (String name : woken) {
                wakeable.add(client.sendAsync(receive(baseUrl, name, 10_000), HttpResponse.BodyHandlers.ofString()));
            }
            for (String name : woken) {
                awaitListening(hub, name);
                streams.append(name, NewStreamMessage.of("t", "{}"));
            }
            for (CompletableFuture<HttpResponse<String>> answer : waiting) {
                expectOk(answer.get(60, TimeUnit.SECONDS));
            }
            for (int i = 0; i < woken.size(); i++) {
                HttpResponse<String> answer = wakeable.get(i).get(60, TimeUnit.SECONDS);
                expectOk(answer);
                // acked, so that the queue's next receive waits again rather than being handed this batch
                Matcher batch = BATCH_ID.matcher(answer.body());
                if (!batch.find()) {
                    throw new IllegalStateException("warm-up receive was not woken: " + answer.body());
                }
                streams.ack(woken.get(i), Long.parseLong(batch.group(1)));
            }
            health(client, healthRequest);
        }
        while (!options.smoke() && !jit.settled() && System.nanoTime() < deadline);
        return jit.elapsed();
    }

    private static HttpRequest receive(String baseUrl, String queue, int waitMs) {
        return HttpRequest.newBuilder(URI.create(baseUrl + "/ojs/v1/queues/" + queue + "/receive"))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60))
                .POST(HttpRequest.BodyPublishers.ofString("{\"consumer\":\"c\",\"wait_ms\":" + waitMs + "}")).build();
    }

    private static void awaitListening(NotificationHub hub, String queue) throws InterruptedException {
        String channel = NotificationHub.channelFor(QueueName.of(queue));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!hub.isListening(channel) && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
    }

    private static void expectOk(HttpResponse<String> response) {
        if (response.statusCode() != 200) {
            throw new IllegalStateException("warm-up receive: " + response.statusCode() + " " + response.body());
        }
    }

    private static long health(HttpClient client, HttpRequest request) throws Exception {
        long started = System.nanoTime();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("health answered " + response.statusCode() + ": " + response.body());
        }
        return System.nanoTime() - started;
    }

    /** Notes when each queue's channel is first seen LISTENed to (the server took its receive just before). */
    private static void watchListening(NotificationHub hub, long[] listened) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int seen = 0;
        while (seen < listened.length && System.nanoTime() < deadline) {
            for (int i = 0; i < listened.length; i++) {
                if (listened[i] == 0 && hub.isListening(NotificationHub.channelFor(QueueName.of(queue(i))))) {
                    listened[i] = System.nanoTime();
                    seen++;
                }
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    private static boolean allListening(NotificationHub hub, int queues) {
        for (int i = 0; i < queues; i++) {
            if (!hub.isListening(NotificationHub.channelFor(QueueName.of(queue(i))))) {
                return false;
            }
        }
        return true;
    }

    private static String queue(int i) {
        return "long-poll-" + i;
    }
}
