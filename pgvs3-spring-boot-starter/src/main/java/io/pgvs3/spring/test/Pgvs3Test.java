package io.pgvs3.spring.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.annotation.AliasFor;

/**
 * A {@code @SpringBootTest} for applications that use pgvs3, with settings that keep tests quick: maintenance
 * every 100 ms, queue gauges sampled every 500 ms, redeliveries after 100 ms (at most 1 s) and a 5 s shutdown
 * timeout. The application's own properties and {@code @TestPropertySource} still win over them. Use it with
 * {@link Pgvs3Await} to wait for listeners and jobs, and with a {@code DataSource} from a Testcontainers
 * {@code @ServiceConnection} or {@code spring.datasource.*}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@SpringBootTest(properties = { "pgvs3.maintenance.interval=100ms", "pgvs3.metrics.sample-interval=500ms",
        "pgvs3.listener.retry.initial-interval=100ms", "pgvs3.listener.retry.max-interval=1s",
        "pgvs3.listener.shutdown-timeout=5s" })
public @interface Pgvs3Test {

    /** The configuration classes to start, as {@link SpringBootTest#classes()}; empty to find the application's. */
    @AliasFor(annotation = SpringBootTest.class, attribute = "classes")
    Class<?>[] classes() default {};
}
