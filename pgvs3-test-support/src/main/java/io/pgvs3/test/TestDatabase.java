package io.pgvs3.test;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * One database created for a test class.
 *
 * @param name     the database name
 * @param jdbcUrl  a JDBC URL for it (with the user when the server needs none else)
 * @param username the user, or null when it is part of the URL
 * @param password the password, or null
 */
public record TestDatabase(String name, String jdbcUrl, String username, String password) {

    /** A new connection pool on this database; the caller closes it. */
    public HikariDataSource newDataSource(int maximumPoolSize) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        if (username != null) {
            config.setUsername(username);
        }
        if (password != null) {
            config.setPassword(password);
        }
        config.setMaximumPoolSize(maximumPoolSize);
        config.setPoolName("pgvs3-test-" + name);
        return new HikariDataSource(config);
    }

    public HikariDataSource newDataSource() {
        return newDataSource(20);
    }
}
