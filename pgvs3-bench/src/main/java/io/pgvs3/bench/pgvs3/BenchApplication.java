package io.pgvs3.bench.pgvs3;

import java.util.LinkedHashMap;
import java.util.Map;

import io.pgvs3.bench.BenchDatabase;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

/**
 * A Spring Boot application with the pgvs3 starter, the way users run it: auto-configured templates, listener
 * containers, maintenance and (when asked for) the HTTP routes on a random port.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class BenchApplication {

    /** A started application on {@code database}; close it when done. */
    public static Running start(BenchDatabase database, boolean synchronousCommit, boolean web,
            Map<String, Object> properties, Object... beans) {
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("spring.datasource.url", database.jdbcUrl(synchronousCommit));
        all.put("spring.datasource.hikari.maximum-pool-size", 32);
        all.put("spring.main.banner-mode", "off");
        all.put("server.port", 0);
        all.put("pgvs3.http.enabled", web);
        all.put("pgvs3.metrics.enabled", false);
        all.putAll(properties);
        SpringApplication application = new SpringApplication(BenchApplication.class);
        application.setWebApplicationType(web ? WebApplicationType.SERVLET : WebApplicationType.NONE);
        application.setDefaultProperties(all);
        application.setLogStartupInfo(false);
        application.addInitializers(context -> {
            for (Object bean : beans) {
                register((GenericApplicationContext) context, bean);
            }
        });
        ConfigurableApplicationContext context = application.run();
        int port = web ? Integer.parseInt(context.getEnvironment().getProperty("local.server.port", "0")) : 0;
        return new Running(context, port);
    }

    /** Registered as a bean definition, so that the listener annotations on it are processed. */
    @SuppressWarnings("unchecked")
    private static <T> void register(GenericApplicationContext context, T bean) {
        context.registerBean((Class<T>) bean.getClass(), () -> bean);
    }

    /** A running application and the HTTP port it listens on (0 without web). */
    public record Running(ConfigurableApplicationContext context, int port) implements AutoCloseable {

        public <T> T bean(Class<T> type) {
            return context.getBean(type);
        }

        public String baseUrl() {
            return "http://127.0.0.1:" + port;
        }

        @Override
        public void close() {
            context.close();
        }
    }
}
