package io.pgvs3.server;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The standalone pgvs3 server: the OJS jobs and streams routes on one port, backed by the PostgreSQL named by
 * {@code spring.datasource.url}, or by an embedded PostgreSQL when none is named.
 */
@SpringBootApplication
public class Pgvs3ServerApplication {

    public static void main(String[] args) {
        SpringApplication.run(Pgvs3ServerApplication.class, args);
    }
}
