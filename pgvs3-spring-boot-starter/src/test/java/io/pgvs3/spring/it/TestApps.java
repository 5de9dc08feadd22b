package io.pgvs3.spring.it;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.pgvs3.test.TestDatabase;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts test applications on a database of their own, without a web server unless asked for. */
public final class TestApps {

    private TestApps() {
    }

    public static ConfigurableApplicationContext run(Class<?> application, TestDatabase database, String... more) {
        return new SpringApplicationBuilder(application).run(properties(database, more));
    }

    /**
     * Command-line arguments for an application on {@code database}: a pool of 16 connections, no banner and no web
     * server. An argument of {@code more} replaces the default of the same property.
     */
    public static String[] properties(TestDatabase database, String... more) {
        Map<String, String> args = new LinkedHashMap<>();
        put(args, "--spring.datasource.url=" + database.jdbcUrl());
        put(args, "--spring.datasource.hikari.maximum-pool-size=16");
        put(args, "--spring.main.banner-mode=off");
        if (database.username() != null) {
            put(args, "--spring.datasource.username=" + database.username());
        }
        if (database.password() != null) {
            put(args, "--spring.datasource.password=" + database.password());
        }
        put(args, "--spring.main.web-application-type=none");
        for (String arg : more) {
            put(args, arg);
        }
        return args.values().toArray(String[]::new);
    }

    /** {@link #properties} for an application serving the pgvs3 HTTP routes on a free port of the loopback address. */
    public static String[] webProperties(TestDatabase database, String... more) {
        List<String> args = new ArrayList<>(List.of("--spring.main.web-application-type=servlet", "--server.port=0",
                "--server.address=127.0.0.1", "--pgvs3.http.enabled=true"));
        args.addAll(List.of(more));
        return properties(database, args.toArray(String[]::new));
    }

    private static void put(Map<String, String> args, String arg) {
        int equals = arg.indexOf('=');
        args.put(equals < 0 ? arg : arg.substring(0, equals), arg);
    }
}
