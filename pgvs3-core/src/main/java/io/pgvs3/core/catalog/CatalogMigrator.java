package io.pgvs3.core.catalog;

import javax.sql.DataSource;

import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Migrates the {@code s3p} catalog schema with a Flyway instance of its own (history table
 * {@code s3p.flyway_schema_history}), so an application's own Flyway never sees it, and then brings every
 * existing queue namespace up to the current templates.
 * <p>
 * The catalog starts from one baseline, {@code V1__catalog.sql}. Catalogs made by pre-release builds, whose history
 * holds the migrations 2 to 11 that the baseline replaced, are refused with a message saying what to do, before
 * Flyway would fail on their checksums.
 */
public class CatalogMigrator {

    public static final String CATALOG_SCHEMA = "s3p";

    public static final String LOCATION = "classpath:io/pgvs3/sql/catalog";

    static final String HISTORY_EXISTS_SQL = "SELECT to_regclass('s3p.flyway_schema_history') IS NOT NULL";

    /** The migrations of pre-release builds that the baseline replaced, by version and description. */
    static final String PRE_RELEASE_MIGRATIONS_SQL = """
            SELECT count(*) FROM s3p.flyway_schema_history h
            WHERE (h.version, h.description) IN (('2', 'jobs'), ('3', 'crons'), ('4', 'workflows'),
                ('5', 'jobs hot paths'), ('6', 'claim rows'), ('7', 'unique across queues'), ('8', 'api tokens'),
                ('9', 'job event streams'), ('10', 'job locator queue c'), ('11', 'job events without time index'))""";

    static final String UPGRADE_QUEUES_SQL = "SELECT s3p.upgrade_queue_schemas()";

    static final String PRE_RELEASE_MESSAGE = "The pgvs3 catalog in schema s3p was made by a pre-release build: its"
            + " history (s3p.flyway_schema_history) holds catalog migrations that this version folded into its baseline"
            + " V1, so it cannot be migrated in place. Start from an empty catalog: point pgvs3 at a new database, or"
            + " drop schema s3p and every queue schema s3q_<name> (DROP SCHEMA s3p CASCADE; DROP SCHEMA \"s3q_<name>\""
            + " CASCADE for each queue; this deletes every queue, job and stream event) and start again.";

    private static final Logger log = LoggerFactory.getLogger(CatalogMigrator.class);

    private final DataSource dataSource;

    public CatalogMigrator(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public void migrate() {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        refusePreReleaseCatalog(jdbc);
        Flyway flyway = Flyway.configure(getClass().getClassLoader())
                .dataSource(dataSource)
                .schemas(CATALOG_SCHEMA)
                .defaultSchema(CATALOG_SCHEMA)
                .createSchemas(true)
                .table("flyway_schema_history")
                .locations(LOCATION)
                .baselineOnMigrate(false)
                .cleanDisabled(true)
                .load();
        MigrateResult result = flyway.migrate();
        Integer upgraded = jdbc.queryForObject(UPGRADE_QUEUES_SQL, Integer.class);
        log.info("pgvs3 catalog at version {} ({} migrations applied, {} queue namespaces upgraded)",
                result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion,
                result.migrationsExecuted, upgraded);
    }

    private static void refusePreReleaseCatalog(JdbcTemplate jdbc) {
        if (Boolean.TRUE.equals(jdbc.queryForObject(HISTORY_EXISTS_SQL, Boolean.class))) {
            Long preRelease = jdbc.queryForObject(PRE_RELEASE_MIGRATIONS_SQL, Long.class);
            if (preRelease != null && preRelease > 0) {
                throw new PreReleaseCatalogException(PRE_RELEASE_MESSAGE);
            }
        }
    }
}
