package io.pgvs3.spring.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.core.stream.StreamStore;
import io.pgvs3.spring.annotation.Pgvs3ListenerAnnotationBeanPostProcessor;
import io.pgvs3.spring.health.Pgvs3HealthIndicator;
import io.pgvs3.spring.it.TestDataSource;
import io.pgvs3.spring.listener.JsonStreamMessageConverter;
import io.pgvs3.spring.listener.Pgvs3ListenerContainerFactory;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;
import io.pgvs3.spring.listener.StreamMessageConverter;
import io.pgvs3.spring.maintenance.MaintenanceScheduler;
import io.pgvs3.spring.metrics.MicrometerPgvs3Metrics;
import io.pgvs3.spring.metrics.QueueStatsSampler;
import io.pgvs3.spring.template.JobTemplate;
import io.pgvs3.spring.template.StreamTemplate;
import io.pgvs3.spring.web.QueueController;
import io.pgvs3.spring.web.dashboard.DashboardController;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;

class Pgvs3AutoConfigurationTests {

    @RegisterExtension
    static final TestDataSource database = new TestDataSource();

    private static final AutoConfigurations PGVS3 = Pgvs3TestRunners.pgvs3(Pgvs3DashboardAutoConfiguration.class);

    private final ApplicationContextRunner runner = Pgvs3TestRunners.runner(database, PGVS3);

    @Test
    void backsOffEntirelyWithoutADataSource() {
        new ApplicationContextRunner().withConfiguration(PGVS3).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(QueueCatalog.class);
            assertThat(context).doesNotHaveBean(Pgvs3ListenerEndpointRegistry.class);
            assertThat(context).doesNotHaveBean(MaintenanceScheduler.class);
            assertThat(context).doesNotHaveBean(Pgvs3HealthIndicator.class);
        });
    }

    @Test
    void providesTheProgrammingModelWithDefaults() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(QueueCatalog.class);
            assertThat(context).hasSingleBean(Pgvs3ListenerAnnotationBeanPostProcessor.class);
            assertThat(context).hasSingleBean(Pgvs3ListenerContainerFactory.class);
            assertThat(context).hasSingleBean(Pgvs3ListenerEndpointRegistry.class);
            assertThat(context).hasSingleBean(StreamTemplate.class);
            assertThat(context).hasSingleBean(JobTemplate.class);
            assertThat(context).getBean(StreamMessageConverter.class).isInstanceOf(JsonStreamMessageConverter.class);
            assertThat(context).getBean(Pgvs3ListenerAutoConfiguration.BACK_OFF_BEAN_NAME, BackOff.class)
                    .isInstanceOf(ExponentialBackOff.class);
            assertThat(context).hasSingleBean(MaintenanceScheduler.class);
            assertThat(context).hasSingleBean(Pgvs3HealthIndicator.class);
            assertThat(context).doesNotHaveBean(MicrometerPgvs3Metrics.class);
            Pgvs3Properties properties = context.getBean(Pgvs3Properties.class);
            assertThat(properties.getListener().isListen()).isTrue();
            assertThat(properties.getListener().getMaxBatchSize()).isEqualTo(100);
            assertThat(properties.getListener().getShutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
            assertThat(properties.getHandler().getVisibilityTimeout()).isEqualTo(Duration.ofSeconds(30));
            assertThat(properties.getHealth().getTimeout()).isEqualTo(Duration.ofSeconds(2));
        });
    }

    @Test
    void bindsListenerHandlerHealthAndMetricsProperties() {
        runner.withPropertyValues("pgvs3.listener.listen=false", "pgvs3.listener.max-batch-size=7",
                "pgvs3.listener.min-poll-interval=10ms", "pgvs3.listener.max-poll-interval=2s",
                "pgvs3.listener.listen-poll-interval=1m", "pgvs3.listener.shutdown-timeout=3s",
                "pgvs3.listener.instance-id=pod-1", "pgvs3.listener.auto-startup=false",
                "pgvs3.listener.retry.initial-interval=200ms", "pgvs3.listener.retry.multiplier=3",
                "pgvs3.listener.retry.max-interval=10s", "pgvs3.handler.visibility-timeout=1m",
                "pgvs3.handler.heartbeat-interval=20s", "pgvs3.handler.prefetch=4",
                "pgvs3.handler.max-poll-interval=500ms", "pgvs3.health.timeout=1s",
                "pgvs3.health.maintenance-stale-after=2m", "pgvs3.health.max-consumer-lag=5",
                "pgvs3.health.max-consumer-lag-age=1m", "pgvs3.health.xmin-horizon-age=30s",
                "pgvs3.metrics.sample-interval=5s").run(context -> {
                    Pgvs3Properties properties = context.getBean(Pgvs3Properties.class);
                    Pgvs3ListenerProperties listener = properties.getListener();
                    assertThat(listener.isListen()).isFalse();
                    assertThat(listener.getMaxBatchSize()).isEqualTo(7);
                    assertThat(listener.getMinPollInterval()).isEqualTo(Duration.ofMillis(10));
                    assertThat(listener.getMaxPollInterval()).isEqualTo(Duration.ofSeconds(2));
                    assertThat(listener.getListenPollInterval()).isEqualTo(Duration.ofMinutes(1));
                    assertThat(listener.getShutdownTimeout()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(listener.getInstanceId()).isEqualTo("pod-1");
                    assertThat(listener.isAutoStartup()).isFalse();
                    assertThat(listener.getRetry().getMultiplier()).isEqualTo(3.0);
                    ExponentialBackOff backOff = (ExponentialBackOff) context
                            .getBean(Pgvs3ListenerAutoConfiguration.BACK_OFF_BEAN_NAME);
                    assertThat(backOff.getInitialInterval()).isEqualTo(200);
                    assertThat(backOff.getMultiplier()).isEqualTo(3.0);
                    assertThat(backOff.getMaxInterval()).isEqualTo(10_000);
                    assertThat(properties.getHandler().getVisibilityTimeout()).isEqualTo(Duration.ofMinutes(1));
                    assertThat(properties.getHandler().getHeartbeatInterval()).isEqualTo(Duration.ofSeconds(20));
                    assertThat(properties.getHandler().getPrefetch()).isEqualTo(4);
                    assertThat(properties.getHandler().getMaxPollInterval()).isEqualTo(Duration.ofMillis(500));
                    assertThat(properties.getHealth().getMaxConsumerLag()).isEqualTo(5);
                    assertThat(properties.getHealth().getXminHorizonAge()).isEqualTo(Duration.ofSeconds(30));
                    assertThat(properties.getMetrics().getSampleInterval()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(context.getBean(Pgvs3ListenerAnnotationBeanPostProcessor.Defaults.class))
                            .isEqualTo(new Pgvs3ListenerAnnotationBeanPostProcessor.Defaults(false, 7));
                });
    }

    @Test
    void rejectsAHeartbeatIntervalNotShorterThanTheVisibilityTimeout() {
        runner.withPropertyValues("pgvs3.handler.visibility-timeout=5s", "pgvs3.handler.heartbeat-interval=5s")
                .run(context -> assertThat(context).hasFailed());
    }

    @Test
    void backsOffForApplicationBeans() {
        StreamMessageConverter converter = (message, type) -> message.payloadJson();
        FixedBackOff backOff = new FixedBackOff(5, 1);
        runner.withBean(StreamMessageConverter.class, () -> converter)
                .withBean(Pgvs3ListenerAutoConfiguration.BACK_OFF_BEAN_NAME, BackOff.class, () -> backOff)
                .run(context -> {
                    assertThat(context).getBean(StreamMessageConverter.class).isSameAs(converter);
                    assertThat(context).getBean(Pgvs3ListenerAutoConfiguration.BACK_OFF_BEAN_NAME)
                            .isSameAs(backOff);
                });
    }

    @Test
    void templatesBackOffForApplicationTemplates() {
        runner.withBean("myStreams", StreamTemplate.class,
                () -> new StreamTemplate((StreamStore) null, new tools.jackson.databind.json.JsonMapper(), null))
                .run(context -> assertThat(context).getBean(StreamTemplate.class).isSameAs(
                        context.getBean("myStreams")));
    }

    @Test
    void maintenanceCanBeSwitchedOff() {
        runner.withPropertyValues("pgvs3.maintenance.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(MaintenanceScheduler.class);
            assertThat(context).hasSingleBean(io.pgvs3.core.maintenance.MaintenancePass.class);
        });
    }

    @Test
    void metricsNeedAMeterRegistryAndCanBeSwitchedOff() {
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
            assertThat(context).hasSingleBean(MicrometerPgvs3Metrics.class);
            assertThat(context).hasSingleBean(QueueStatsSampler.class);
        });
        runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("pgvs3.metrics.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(MicrometerPgvs3Metrics.class));
    }

    @Test
    void healthIndicatorCanBeSwitchedOff() {
        runner.withPropertyValues("management.health.pgvs3.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(Pgvs3HealthIndicator.class));
    }

    @Test
    void httpRoutesAreOffUnlessEnabled() {
        WebApplicationContextRunner web = Pgvs3TestRunners.web(database, PGVS3);
        web.run(context -> assertThat(context).doesNotHaveBean(QueueController.class));
        web.withPropertyValues("pgvs3.http.enabled=true")
                .run(context -> assertThat(context).hasSingleBean(QueueController.class));
    }

    @Test
    void theDashboardIsOffUnlessEnabledAndNeedsTheHttpRoutes() {
        WebApplicationContextRunner web = Pgvs3TestRunners.web(database, PGVS3);
        web.withPropertyValues("pgvs3.http.enabled=true")
                .run(context -> assertThat(context).doesNotHaveBean(DashboardController.class));
        web.withPropertyValues("pgvs3.dashboard.enabled=true")
                .run(context -> assertThat(context).doesNotHaveBean(DashboardController.class));
        web.withPropertyValues("pgvs3.http.enabled=true", "pgvs3.dashboard.enabled=true", "pgvs3.http.read-only=true")
                .run(context -> {
                    assertThat(context).hasSingleBean(DashboardController.class);
                    assertThat(context.getBean(DashboardController.class).settings()).containsEntry("read_only", true);
                });
    }

    @Test
    void registryStartsNothingBeforeTheApplicationIsReady() {
        AtomicBoolean started = new AtomicBoolean();
        runner.run(context -> {
            Pgvs3ListenerEndpointRegistry registry = context.getBean(Pgvs3ListenerEndpointRegistry.class);
            assertThat(registry.isRunning()).isTrue();
            assertThat(registry.getContainers()).isEmpty();
            started.set(true);
        });
        assertThat(started).isTrue();
    }
}
