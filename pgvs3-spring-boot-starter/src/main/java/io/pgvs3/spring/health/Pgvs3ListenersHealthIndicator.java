package io.pgvs3.spring.health;

import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.spring.listener.Pgvs3ListenerContainer;
import io.pgvs3.spring.listener.Pgvs3ListenerEndpointRegistry;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The state of the listener containers, as the Actuator health component {@code pgvs3Listeners}: OUT_OF_SERVICE
 * until the containers that start with the application have started (and again once shutdown began), else UP.
 * Include it in the readiness group ({@code management.endpoint.health.group.readiness.include=readinessState,
 * pgvs3Listeners}) so that an instance receives traffic only once it consumes. Details list every container with
 * its state ({@code running}, {@code paused} or {@code stopped}), queue, concurrency and whether it starts with
 * the application.
 */
public class Pgvs3ListenersHealthIndicator implements HealthIndicator {

    private final Pgvs3ListenerEndpointRegistry registry;

    public Pgvs3ListenersHealthIndicator(Pgvs3ListenerEndpointRegistry registry) {
        this.registry = registry;
    }

    @Override
    public Health health() {
        Map<String, Object> containers = new LinkedHashMap<>();
        for (Pgvs3ListenerContainer container : registry.getContainers()) {
            Map<String, Object> detail = new LinkedHashMap<>();
            detail.put("state", !container.isRunning() ? "stopped" : container.isPaused() ? "paused" : "running");
            detail.put("queue", container.queue());
            detail.put("concurrency", container.concurrency());
            detail.put("autoStartup", registry.isAutoStartup(container.id()));
            containers.put(container.id(), detail);
        }
        Health.Builder builder = registry.isStarted() ? Health.up() : Health.outOfService();
        return builder.withDetail("started", registry.isStarted()).withDetail("containers", containers).build();
    }
}
