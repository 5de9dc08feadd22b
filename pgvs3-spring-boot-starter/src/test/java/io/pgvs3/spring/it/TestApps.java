package io.pgvs3.spring.it;

import java.util.ArrayList;
import java.util.List;

import io.pgvs3.test.TestDatabase;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts test applications on a database of their own, without a web server unless asked for. */
final class TestApps {

    private TestApps() {
    }

    static ConfigurableApplicationContext run(Class<?> application, TestDatabase database, String... more) {
        return new SpringApplicationBuilder(application).run(properties(database, more));
    }

    static String[] properties(TestDatabase database, String... more) {
        List<String> args = new ArrayList<>(List.of("--spring.datasource.url=" + database.jdbcUrl(),
                "--spring.datasource.hikari.maximum-pool-size=16", "--spring.main.banner-mode=off"));
        if (database.username() != null) {
            args.add("--spring.datasource.username=" + database.username());
        }
        if (database.password() != null) {
            args.add("--spring.datasource.password=" + database.password());
        }
        if (List.of(more).stream().noneMatch(arg -> arg.startsWith("--spring.main.web-application-type"))) {
            args.add("--spring.main.web-application-type=none");
        }
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }
}
