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
 */
public class CatalogMigrator {

    public static final String CATALOG_SCHEMA = "s3p";

    public static final String LOCATION = "classpath:io/pgvs3/sql/catalog";

    private static final Logger log = LoggerFactory.getLogger(CatalogMigrator.class);

    private final DataSource dataSource;

    public CatalogMigrator(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public void migrate() {
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
        Integer upgraded = new JdbcTemplate(dataSource)
                .queryForObject("SELECT s3p.upgrade_queue_schemas()", Integer.class);
        log.info("pgvs3 catalog at version {} ({} migrations applied, {} queue namespaces upgraded)",
                result.targetSchemaVersion != null ? result.targetSchemaVersion : result.initialSchemaVersion,
                result.migrationsExecuted, upgraded);
    }
}
