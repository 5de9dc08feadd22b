package io.pgvs3.core.catalog;

import com.zaxxer.hikari.HikariDataSource;
import io.pgvs3.test.TestPostgres;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CatalogMigratorTest {

    private HikariDataSource dataSource;
    private JdbcTemplate jdbc;

    @BeforeEach
    void database() {
        dataSource = TestPostgres.get().newDatabase().newDataSource(5);
        jdbc = new JdbcTemplate(dataSource);
    }

    @AfterEach
    void close() {
        dataSource.close();
    }

    @Test
    void keepsItsHistoryInsideTheCatalogSchemaAndIsRepeatable() {
        new CatalogMigrator(dataSource).migrate();
        new CatalogMigrator(dataSource).migrate();
        assertThat(tableExists("s3p", "flyway_schema_history")).isTrue();
        assertThat(tableExists("public", "flyway_schema_history")).isFalse();
        assertThat(jdbc.queryForObject("SELECT count(*) FROM s3p.flyway_schema_history WHERE NOT success", Integer.class))
                .isZero();
    }

    @Test
    void coexistsWithTheApplicationsOwnFlyway() {
        Flyway application = Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:app-migrations")
                .load();
        application.migrate();
        new CatalogMigrator(dataSource).migrate();
        new QueueCatalog(jdbc).ensure(QueueName.of("side-by-side"));

        // the application's Flyway still validates, sees only its own migrations and keeps migrating
        application.validate();
        assertThat(application.info().applied()).hasSize(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM public.flyway_schema_history", Integer.class)).isEqualTo(1);
        assertThat(jdbc.queryForObject("SELECT count(*) FROM app_orders", Integer.class)).isZero();
        Flyway.configure().dataSource(dataSource).locations("classpath:app-migrations").load().migrate();

        // and ours is unaffected by it
        new CatalogMigrator(dataSource).migrate();
        assertThat(new QueueCatalog(jdbc).names()).containsExactly("side-by-side");
    }

    @Test
    void upgradeRerunsTheTemplatesForEveryExistingQueue() {
        new CatalogMigrator(dataSource).migrate();
        QueueCatalog catalog = new QueueCatalog(jdbc);
        catalog.ensure(QueueName.of("old-one"));
        catalog.ensure(QueueName.of("old-two"));

        jdbc.update("INSERT INTO s3p.queue_templates (part, position, body) VALUES ('probe', 99, ?)",
                "CREATE TABLE IF NOT EXISTS @schema@.upgrade_probe (queue text DEFAULT @queue@)");
        Integer upgraded = jdbc.queryForObject("SELECT s3p.upgrade_queue_schemas()", Integer.class);

        assertThat(upgraded).isEqualTo(2);
        assertThat(tableExists("s3q_old-one", "upgrade_probe")).isTrue();
        assertThat(tableExists("s3q_old-two", "upgrade_probe")).isTrue();
        jdbc.update("INSERT INTO \"s3q_old-two\".upgrade_probe DEFAULT VALUES");
        assertThat(jdbc.queryForObject("SELECT queue FROM \"s3q_old-two\".upgrade_probe", String.class))
                .isEqualTo("old-two");
        assertThat(jdbc.queryForObject("SELECT s3p.upgrade_queue_schemas()", Integer.class)).isZero();
    }

    @Test
    void startsFromOneBaseline() {
        new CatalogMigrator(dataSource).migrate();
        // the baseline, then the migrations made after it
        assertThat(jdbc.queryForList("SELECT version FROM s3p.flyway_schema_history WHERE version IS NOT NULL"
                + " ORDER BY installed_rank", String.class)).containsExactly("1", "2", "3", "4");
    }

    @Test
    void refusesACatalogMadeByAPreReleaseBuildWithWhatToDo() {
        new CatalogMigrator(dataSource).migrate();
        // the history a pre-release build left: the baseline's version 1 followed by versions 2 to 11
        jdbc.update("""
                INSERT INTO s3p.flyway_schema_history (installed_rank, version, description, type, script, checksum,
                                                       installed_by, execution_time, success)
                SELECT 100 + v, v::text, d, 'SQL', 'V' || v || '__' || replace(d, ' ', '_') || '.sql', 0, current_user,
                       0, true
                FROM unnest(ARRAY[2, 10], ARRAY['jobs', 'job locator queue c']) AS t(v, d)""");

        assertThatThrownBy(() -> new CatalogMigrator(dataSource).migrate())
                .isInstanceOf(PreReleaseCatalogException.class)
                .hasMessageContaining("pre-release")
                .hasMessageContaining("DROP SCHEMA s3p CASCADE")
                .hasMessageContaining("new database");
    }

    private boolean tableExists(String schema, String table) {
        return Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = ? AND tablename = ?)", Boolean.class,
                schema, table));
    }
}
