package io.pgvs3.spring.it.slice;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.pgvs3.core.job.Job;
import io.pgvs3.core.job.JobState;
import io.pgvs3.core.job.JobStore;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.annotation.JobHandler;
import io.pgvs3.spring.annotation.StreamListener;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;
import io.pgvs3.spring.template.JobOptions;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.spring.test.Pgvs3Await;
import io.pgvs3.spring.test.Pgvs3Test;
import io.pgvs3.test.TestDatabase;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Pgvs3Test} starts an application with quick test settings, and {@link Pgvs3Await} waits for what its
 * listeners and handlers do.
 */
@Pgvs3Test(classes = Pgvs3TestSliceTests.SliceApp.class)
class Pgvs3TestSliceTests {

    private static final TestDatabase database = TestPostgres.get().newDatabase();
    private static final List<Integer> received = new CopyOnWriteArrayList<>();

    @DynamicPropertySource
    static void datasource(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", database::jdbcUrl);
        if (database.username() != null) {
            registry.add("spring.datasource.username", database::username);
        }
        if (database.password() != null) {
            registry.add("spring.datasource.password", database::password);
        }
    }

    @Autowired
    private Pgvs3ListenerEndpointRegistry registry;

    @Autowired
    private StreamTemplate streams;

    @Autowired
    private StreamStore store;

    @Autowired
    private JobTemplate jobs;

    @Autowired
    private JobStore jobStore;

    @Autowired
    private Environment environment;

    @Test
    void theSliceAppliesTestSettingsAndTheHelpersWait() {
        assertThat(environment.getProperty("pgvs3.maintenance.interval")).isEqualTo("100ms");
        Pgvs3Await.listenersStarted(registry, Duration.ofSeconds(20));
        for (int i = 0; i < 20; i++) {
            streams.append("slice", "n", Map.of("n", i));
        }
        Pgvs3Await.consumerCaughtUp(store, "slice", "c", Duration.ofSeconds(20));
        assertThat(received).hasSize(20);

        Job job = jobs.enqueue("slice.job", 21, JobOptions.queue("slice-jobs"));
        assertThat(Pgvs3Await.jobFinished(jobStore, job.id(), Duration.ofSeconds(20)).state())
                .isEqualTo(JobState.COMPLETED);
    }

    @Test
    void aHelperThatTimesOutFails() {
        assertThatThrownBy(() -> Pgvs3Await.consumerCaughtUp(store, "slice", "nobody", Duration.ofMillis(200)))
                .isInstanceOf(AssertionError.class).hasMessageContaining("nobody");
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class SliceApp {

        @Bean
        SliceListeners sliceListeners() {
            return new SliceListeners();
        }
    }

    static class SliceListeners {

        @StreamListener(queue = "slice", consumer = "c")
        void handle(Map<String, Integer> message) throws InterruptedException {
            Thread.sleep(10);
            received.add(message.get("n"));
        }

        @JobHandler(type = "slice.job", queue = "slice-jobs")
        int job(int n) {
            return n * 2;
        }
    }
}
