package io.pgvs3.spring.autoconfigure;

import javax.sql.DataSource;

import io.pgvs3.core.catalog.CatalogMigrator;
import io.pgvs3.core.catalog.QueueCatalog;
import io.pgvs3.spring.support.Pgvs3JsonMapper;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Core pgvs3 beans: the catalog (migrated at startup, isolated from the application's own Flyway) and the
 * JSON mapper pgvs3 uses. The jobs and streams views plug in through the imported configurations.
 */
@AutoConfiguration(after = DataSourceAutoConfiguration.class,
        afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnBean(DataSource.class)
@EnableConfigurationProperties(Pgvs3Properties.class)
@Import({ Pgvs3JobsConfiguration.class, Pgvs3StreamsConfiguration.class, Pgvs3ClustersConfiguration.class })
public class Pgvs3AutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public CatalogMigrator pgvs3CatalogMigrator(DataSource dataSource) {
        CatalogMigrator migrator = new CatalogMigrator(dataSource);
        migrator.migrate();
        return migrator;
    }

    @Bean
    @ConditionalOnMissingBean
    public QueueCatalog pgvs3QueueCatalog(DataSource dataSource, CatalogMigrator migrator) {
        return new QueueCatalog(new JdbcTemplate(dataSource));
    }

    @Bean
    @ConditionalOnMissingBean(name = "pgvs3JsonMapper")
    public Pgvs3JsonMapper pgvs3JsonMapper(ObjectProvider<JsonMapper> applicationMapper) {
        return new Pgvs3JsonMapper(applicationMapper.getIfAvailable(JsonMapper::new));
    }
}
