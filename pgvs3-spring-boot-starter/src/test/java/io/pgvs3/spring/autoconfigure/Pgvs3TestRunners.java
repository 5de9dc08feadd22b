package io.pgvs3.spring.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

import io.pgvs3.spring.it.TestDataSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/** Context runners with the starter's auto-configurations and a test database as the application's DataSource. */
final class Pgvs3TestRunners {

    /** What an application gets from the starter, without the dashboard and web security. */
    private static final List<Class<?>> STARTER = List.of(Pgvs3AutoConfiguration.class,
            Pgvs3MaintenanceAutoConfiguration.class, Pgvs3WebAutoConfiguration.class,
            Pgvs3TemplateAutoConfiguration.class, Pgvs3ListenerAutoConfiguration.class,
            Pgvs3MetricsAutoConfiguration.class, Pgvs3HealthAutoConfiguration.class);

    private Pgvs3TestRunners() {
    }

    /** The starter's auto-configurations and {@code more}. */
    static AutoConfigurations pgvs3(Class<?>... more) {
        List<Class<?>> all = new ArrayList<>(STARTER);
        all.addAll(List.of(more));
        return AutoConfigurations.of(all.toArray(Class<?>[]::new));
    }

    static ApplicationContextRunner runner(TestDataSource database, AutoConfigurations configurations) {
        return new ApplicationContextRunner().withConfiguration(configurations)
                .withBean(DataSource.class, database::bean);
    }

    /** A servlet web application; the pgvs3 HTTP routes are off unless {@code pgvs3.http.enabled} is set. */
    static WebApplicationContextRunner web(TestDataSource database, AutoConfigurations configurations) {
        return new WebApplicationContextRunner().withConfiguration(configurations)
                .withBean(DataSource.class, database::bean);
    }
}
