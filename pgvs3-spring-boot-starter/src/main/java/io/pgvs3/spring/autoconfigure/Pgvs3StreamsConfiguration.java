package io.pgvs3.spring.autoconfigure;

import org.springframework.context.annotation.Configuration;

/**
 * Beans of the streams view.
 */
@Configuration(proxyBeanMethods = false)
class Pgvs3StreamsConfiguration {
}
