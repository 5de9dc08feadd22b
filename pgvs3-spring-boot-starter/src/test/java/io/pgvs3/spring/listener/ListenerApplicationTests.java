package io.pgvs3.spring.listener;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobState;
import io.pgvs3.core.job.UniqueOptions;
import io.pgvs3.core.stream.StreamStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.pgvs3.spring.annotation.JobHandler;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.health.Pgvs3HealthIndicator;
import io.pgvs3.spring.it.TestApps;
import io.pgvs3.spring.metrics.QueueStatsSampler;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.OutgoingMessage;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.test.OjsClient;
import io.pgvs3.test.TestDatabase;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A whole Spring application with annotated listeners and handlers, on a real PostgreSQL.
 */
@Tag("slow")
class ListenerApplicationTests {

    private static TestDatabase database;
    private static ConfigurableApplicationContext context;
    private static Listeners listeners;
    private static StreamTemplate streams;
    private static JobTemplate jobs;
    private static TransactionTemplate transactions;

    @BeforeAll
    static void start() {
        database = TestPostgres.get().newDatabase();
        context = new SpringApplicationBuilder(ListenerApp.class).run(TestApps.webProperties(database,
                "--pgvs3.listener.listen-poll-interval=60s", "--pgvs3.maintenance.interval=100ms"));
        listeners = context.getBean(Listeners.class);
        streams = context.getBean(StreamTemplate.class);
        jobs = context.getBean(JobTemplate.class);
        transactions = context.getBean(TransactionTemplate.class);
    }

    @AfterAll
    static void stop() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void everyConsumerOfAQueueGetsEveryEvent() {
        List<OutgoingMessage> orders = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            orders.add(OutgoingMessage.of("order.created", new Order("o-" + i, i)).withHeader("tenant", "t1"));
        }
        streams.appendAll("orders", orders);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(listeners.billing).hasSize(50);
            assertThat(listeners.audit).hasSize(50);
        });
        assertThat(listeners.billing.stream().map(Order::id)).doesNotHaveDuplicates();
        assertThat(listeners.audit.stream().map(m -> m.payload().id())).doesNotHaveDuplicates();
        StreamMessage<Order> first = listeners.audit.get(0);
        assertThat(first.header("tenant")).isEqualTo("t1");
        assertThat(first.batchId()).isPositive();
        assertThat(first.type()).isEqualTo("order.created");
    }

    @Test
    void cooperativeMembersShareTheWork() {
        for (int i = 0; i < 40; i++) {
            streams.append("shared", "tick", Map.of("n", i));
            if (i % 10 == 9) {
                sleep(150);
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> listeners.shared.size() >= 40);
        assertThat(Set.copyOf(listeners.shared)).hasSize(40);
        assertThat(listeners.sharedThreads.size()).isGreaterThan(1);
        assertThat(context.getBean(Pgvs3ListenerEndpointRegistry.class).getContainer("shared.workers").concurrency())
                .isEqualTo(4);
    }

    @Test
    void aMessageThatKeepsFailingEndsInTheDeadLetterQueue() {
        StreamStore store = context.getBean(StreamStore.class);
        streams.append("fragile", "bad", Map.of("n", 1));
        streams.append("fragile", "good", Map.of("n", 2));
        store.updateConfig("fragile", 2, null);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> store.deadLetters("fragile", 10, 0).path("dead_letters").size() == 1);
        assertThat(listeners.fragileAttempts.get()).isEqualTo(3);
        assertThat(listeners.fragileGood).containsExactly(2);
    }

    @Test
    void aJobHandlerCompletesJobsFromTheTemplateAndOverHttp() {
        Job viaTemplate = jobs.enqueue("email.send", new Email("a@example.com", "hi"),
                JobOptions.queue("emails").priority(5));
        int port = ((WebServerApplicationContext) context).getWebServer().getPort();
        OjsClient http = OjsClient.forPort(port);
        OjsClient.Response response = http.post("/ojs/v1/jobs", Map.of("type", "email.send", "queue", "emails",
                "args", List.of(Map.of("to", "b@example.com", "subject", "yo"))));
        assertThat(response.status()).isEqualTo(201);
        String viaHttp = response.json().path("job").path("id").asString();
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(jobs.get(viaTemplate.id()).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
            assertThat(jobs.get(viaHttp).orElseThrow().state()).isEqualTo(JobState.COMPLETED);
        });
        assertThat(jobs.get(viaTemplate.id()).orElseThrow().resultJson()).contains("\"to\":\"a@example.com\"");
        assertThat(listeners.emails).containsExactlyInAnyOrder("a@example.com", "b@example.com");
    }

    @Test
    void aJobHandlerGetsItsArgsAsItsOwnCopyOfTheFetchedEnvelopesArgs() {
        Job job = jobs.enqueue("tree.edit", Map.of("n", 7), JobOptions.queue("trees"));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> jobs.get(job.id()).orElseThrow().state() == JobState.COMPLETED);
        assertThat(listeners.edited).containsExactly("7 [{\"n\":7}] [{\"n\":7}]");
    }

    @Test
    void aFailingJobIsNackedWithItsError() {
        Job job = jobs.enqueue("report.build", new Object[] { "q3", 7 },
                JobOptions.queue("reports").retry(new JobOptions.Retry(1, Duration.ofMillis(10), 2.0,
                        Duration.ofMillis(10))));
        await().atMost(Duration.ofSeconds(20))
                .until(() -> jobs.get(job.id()).orElseThrow().state() == JobState.DISCARDED);
        Job failed = jobs.get(job.id()).orElseThrow();
        assertThat(failed.error().message()).isEqualTo("no data for q3/7");
        assertThat(failed.error().code()).isEqualTo("IllegalStateException");
    }

    @Test
    void aRolledBackTransactionAppendsAndEnqueuesNothing() {
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        jdbc.execute("CREATE TABLE IF NOT EXISTS app_orders (id text PRIMARY KEY)");
        String[] jobId = new String[1];
        try {
            transactions.executeWithoutResult(status -> {
                jdbc.update("INSERT INTO app_orders VALUES ('rolled-back')");
                streams.append("outbox", "order.created", new Order("rolled-back", 1));
                jobId[0] = jobs.enqueue("outbox.job", "rolled-back", JobOptions.queue("outbox-jobs")).id();
                throw new IllegalStateException("application failure");
            });
        }
        catch (IllegalStateException expected) {
            // the whole transaction rolled back
        }
        transactions.executeWithoutResult(status -> {
            jdbc.update("INSERT INTO app_orders VALUES ('committed')");
            streams.append("outbox", "order.created", new Order("committed", 2));
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> listeners.outbox.contains("committed"));
        sleep(500);
        assertThat(listeners.outbox).containsExactly("committed");
        assertThat(jobs.get(jobId[0])).isEmpty();
        assertThat(jdbc.queryForList("SELECT id FROM app_orders", String.class)).containsExactly("committed");
    }

    @Test
    void aNotificationWakesAnIdleListenerWithoutWaitingForThePoll() {
        streams.append("wakeup", "ping", Map.of("n", 0));
        await().atMost(Duration.ofSeconds(20)).until(() -> listeners.wakeups.size() == 1);
        sleep(300);
        long appended = System.nanoTime();
        streams.append("wakeup", "ping", Map.of("n", 1));
        await().atMost(Duration.ofSeconds(5)).until(() -> listeners.wakeups.size() == 2);
        // the listener sleeps 60 s between polls; only the notification can have woken it this fast
        assertThat(Duration.ofNanos(listeners.wakeups.get(1) - appended)).isLessThan(Duration.ofSeconds(5));
    }

    @Test
    void aListenerThatLaggedBehindThousandsOfEventsDrainsThemAllInChunks() {
        Pgvs3ListenerEndpointRegistry registry = context.getBean(Pgvs3ListenerEndpointRegistry.class);
        registry.pause("lagging.listener");
        sleep(300);
        List<Integer> expected = new ArrayList<>();
        for (int call = 0; call < 50; call++) {
            List<OutgoingMessage> messages = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                expected.add(call * 100 + i);
                messages.add(OutgoingMessage.of("n", Map.of("n", call * 100 + i)));
            }
            streams.appendAll("lagging", messages);
        }
        registry.resume("lagging.listener");
        await().atMost(Duration.ofSeconds(60)).until(() -> listeners.lagging.size() >= expected.size());
        assertThat(listeners.lagging).containsExactlyElementsOf(expected);
        // every tick range spans at least one append of 100; the receive asks for the listener's 50, so each call
        // is a batch of its own, acked on its own
        assertThat(listeners.laggingChunks).allMatch(size -> size <= 50).contains(50);
        assertThat(listeners.laggingBatches).as("one batch per call").hasSize(listeners.laggingChunks.size());
    }

    @Test
    void theRegistryPausesResumesAndWakesContainersById() {
        Pgvs3ListenerEndpointRegistry registry = context.getBean(Pgvs3ListenerEndpointRegistry.class);
        assertThat(registry.getContainerIds()).contains("orders.billing", "orders.audit", "shared.workers",
                "jobs.emails", "jobs.reports");
        registry.pause("paused.listener");
        sleep(300);
        streams.append("paused", "ping", Map.of());
        sleep(1000);
        assertThat(listeners.paused).isEmpty();
        registry.resume("paused.listener");
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners.paused.size() == 1);
        registry.stop("paused.listener");
        assertThat(registry.getContainer("paused.listener").isRunning()).isFalse();
        registry.start("paused.listener");
        assertThat(registry.getContainer("paused.listener").isRunning()).isTrue();
        registry.wakeUp("paused.listener");
    }

    @Test
    void metersCountTheWorkAndGaugesReadTheLatestSample() {
        MeterRegistry meters = context.getBean(MeterRegistry.class);
        streams.append("metered", "m", Map.of("n", 1));
        streams.append("metered", "m", Map.of("n", 2));
        await().atMost(Duration.ofSeconds(20)).until(() -> listeners.metered.size() == 2);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            assertThat(meters.get("pgvs3.stream.appended").tag("queue", "metered").counter().count()).isEqualTo(2);
            assertThat(meters.get("pgvs3.stream.received").tag("consumer", "meter").counter().count()).isEqualTo(2);
            assertThat(meters.get("pgvs3.stream.acked").tag("consumer", "meter").counter().count()).isEqualTo(2);
            assertThat(meters.get("pgvs3.handler").tag("id", "metered.meter").timer().count()).isEqualTo(2);
            assertThat(meters.get("pgvs3.maintenance.duration").timer().count()).isPositive();
        });
        QueueStatsSampler sampler = context.getBean(QueueStatsSampler.class);
        sampler.sample();
        assertThat(meters.get("pgvs3.stream.consumer.lag").tags("queue", "metered", "consumer", "meter").gauge()
                .value()).isZero();
        assertThat(meters.get("pgvs3.jobs.depth").tags("queue", "emails", "state", "available").gauge().value())
                .isGreaterThanOrEqualTo(0);
        Health health = context.getBean(Pgvs3HealthIndicator.class).health();
        assertThat(health.getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void aTransactionalListenerKeepsTheWorkOfGoodMessagesAndRollsBackTheFailingOne() {
        JdbcTemplate jdbc = context.getBean(JdbcTemplate.class);
        jdbc.execute("CREATE TABLE IF NOT EXISTS tx_rows (n integer NOT NULL)");
        StreamStore store = context.getBean(StreamStore.class);
        streams.appendAll("txq", List.of(OutgoingMessage.of("n", Map.of("n", 1)), OutgoingMessage.of("n", Map.of("n", 2)),
                OutgoingMessage.of("n", Map.of("n", 3))));
        store.updateConfig("txq", 1, null);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> store.deadLetters("txq", 10, 0).path("dead_letters").size() == 1);
        assertThat(jdbc.queryForList("SELECT n FROM tx_rows ORDER BY n", Integer.class)).containsExactly(1, 3);
    }

    @Test
    void theJobTemplateEnqueuesBatchesWithOptionsAndCancels() {
        List<Job> batch = jobs.enqueueAll(List.of(
                new JobTemplate.JobRequest("later.job", 1, JobOptions.queue("later")),
                new JobTemplate.JobRequest("later.job", new Object[] { "a", 2 }, JobOptions.queue("later")
                        .delay(Duration.ofHours(1)).priority(3).maxAttempts(7).meta("tenant", "t1"))));
        assertThat(batch).hasSize(2);
        assertThat(batch.get(0).state()).isEqualTo(JobState.AVAILABLE);
        assertThat(batch.get(0).argsJson()).isEqualTo("[1]");
        Job later = jobs.get(batch.get(1).id()).orElseThrow();
        assertThat(later.state()).isEqualTo(JobState.SCHEDULED);
        assertThat(later.priority()).isEqualTo(3);
        assertThat(later.maxAttempts()).isEqualTo(7);
        assertThat(later.metaJson()).contains("t1");
        assertThat(later.argsJson()).isEqualTo("[\"a\",2]");
        assertThat(jobs.cancel(later.id()).state()).isEqualTo(JobState.CANCELLED);

        JobOptions once = JobOptions.queue("later").delay(Duration.ofHours(1))
                .unique(new UniqueOptions(List.of("type", "args"), null, null, null, "ignore"));
        Job first = jobs.enqueue("unique.job", "same", once);
        Job second = jobs.enqueue("unique.job", "same", once);
        assertThat(second.id()).isEqualTo(first.id());
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    record Order(String id, int amount) {
    }

    record Email(String to, String subject) {
    }

    @SpringBootApplication
    static class ListenerApp {

        @Bean
        Listeners listeners(JdbcTemplate jdbc) {
            return new Listeners(jdbc);
        }

        @Bean(name = "pgvs3ListenerBackOff")
        BackOff fastRetries() {
            return new FixedBackOff(0, Long.MAX_VALUE);
        }

        public static void main(String[] args) {
            SpringApplication.run(ListenerApp.class, args);
        }
    }

    static class Listeners {

        private final JdbcTemplate jdbc;

        Listeners(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @StreamListener(queue = "txq", consumer = "writer", transactional = true)
        void write(Map<String, Integer> message) {
            int n = message.get("n");
            jdbc.update("INSERT INTO tx_rows (n) VALUES (?)", n);
            if (n == 2) {
                throw new IllegalStateException("row 2 must not stay");
            }
        }

        final List<Order> billing = new CopyOnWriteArrayList<>();
        final List<StreamMessage<Order>> audit = new CopyOnWriteArrayList<>();
        final List<Integer> shared = new CopyOnWriteArrayList<>();
        final Set<String> sharedThreads = ConcurrentHashMap.newKeySet();
        final AtomicInteger fragileAttempts = new AtomicInteger();
        final List<Integer> fragileGood = new CopyOnWriteArrayList<>();
        final List<String> emails = new CopyOnWriteArrayList<>();
        final List<String> edited = new CopyOnWriteArrayList<>();
        final List<String> outbox = new CopyOnWriteArrayList<>();
        final List<Long> wakeups = new CopyOnWriteArrayList<>();
        final List<String> paused = new CopyOnWriteArrayList<>();
        final List<String> metered = new CopyOnWriteArrayList<>();

        @StreamListener(queue = "metered", consumer = "meter")
        void meter(String json) {
            metered.add(json);
        }

        @StreamListener(queue = "orders", consumer = "billing")
        void bill(Order order) {
            billing.add(order);
        }

        @StreamListener(queue = "orders", consumer = "audit", maxBatchSize = "7")
        void audit(List<StreamMessage<Order>> batch) {
            audit.addAll(batch);
        }

        @StreamListener(queue = "shared", consumer = "workers", concurrency = "4", maxBatchSize = "5")
        void share(Map<String, Integer> message) {
            sharedThreads.add(Thread.currentThread().getName());
            shared.add(message.get("n"));
            sleep(20);
        }

        @StreamListener(queue = "fragile", consumer = "picky")
        void fragile(StreamMessage<Map<String, Integer>> message) {
            if (message.type().equals("bad")) {
                fragileAttempts.incrementAndGet();
                throw new IllegalArgumentException("cannot handle " + message.id());
            }
            fragileGood.add(message.payload().get("n"));
        }

        @StreamListener(queue = "outbox", consumer = "relay")
        void relay(Order order) {
            outbox.add(order.id());
        }

        final List<Integer> lagging = new CopyOnWriteArrayList<>();
        final List<Integer> laggingChunks = new CopyOnWriteArrayList<>();
        final Set<Long> laggingBatches = ConcurrentHashMap.newKeySet();

        @StreamListener(id = "lagging.listener", queue = "lagging", consumer = "behind", maxBatchSize = "50")
        void lag(List<StreamMessage<Map<String, Integer>>> batch) {
            laggingChunks.add(batch.size());
            laggingBatches.add(batch.get(0).batchId());
            batch.forEach(message -> lagging.add(message.payload().get("n")));
        }

        @StreamListener(queue = "wakeup", consumer = "sleeper")
        void wake(String json) {
            wakeups.add(System.nanoTime());
        }

        @StreamListener(id = "paused.listener", queue = "paused", consumer = "pausable")
        void paused(String json) {
            paused.add(json);
        }

        @JobHandler(type = "email.send", queue = "emails", concurrency = "4")
        Email send(Email email, JobContext context) {
            assertThat(context.queue()).isEqualTo("emails");
            emails.add(email.to());
            return email;
        }

        @JobHandler(type = "tree.edit", queue = "trees")
        String edit(tools.jackson.databind.JsonNode tree, JobContext context) {
            ((tools.jackson.databind.node.ObjectNode) tree).put("edited", true);
            edited.add(tree.path("n").asInt() + " " + context.job().envelope().path("args").toString() + " "
                    + context.job().argsJson());
            return null;
        }

        @JobHandler(type = "report.build", queue = "reports")
        String report(String quarter, int number) {
            throw new IllegalStateException("no data for " + quarter + "/" + number);
        }
    }
}
