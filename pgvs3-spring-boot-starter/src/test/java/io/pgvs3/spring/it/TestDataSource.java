package io.pgvs3.spring.it;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.core.catalog.CatalogMigrator;
import io.pgvs3.test.TestPostgres;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A pool of 4 connections on a new database of the tests' PostgreSQL, opened before the first test of a class and
 * closed after its last: {@code @RegisterExtension static final TestDataSource database = new TestDataSource();}.
 */
public final class TestDataSource implements BeforeAllCallback, AfterAllCallback {

    private final boolean catalog;
    private HikariDataSource dataSource;

    public TestDataSource() {
        this(false);
    }

    private TestDataSource(boolean catalog) {
        this.catalog = catalog;
    }

    /** The same, on a database with pgvs3's catalog migrated (what the maintenance pass's lock needs, for one). */
    public static TestDataSource withCatalog() {
        return new TestDataSource(true);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        dataSource = TestPostgres.get().newDatabase().newDataSource(4);
        if (catalog) {
            new CatalogMigrator(dataSource).migrate();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        dataSource.close();
    }

    public HikariDataSource get() {
        return dataSource;
    }

    /**
     * The pool as a context runner's {@code DataSource} bean, e.g. {@code withBean(DataSource.class, database::bean)}:
     * a delegate, so that closing each context leaves the pool open for the class's next one.
     */
    public DataSource bean() {
        return new DelegatingDataSource(dataSource);
    }
}
