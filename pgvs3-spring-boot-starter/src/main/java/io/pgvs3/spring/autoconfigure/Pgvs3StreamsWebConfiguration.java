package io.pgvs3.spring.autoconfigure;

import org.springframework.context.annotation.Configuration;

/**
 * Controllers of the streams view's HTTP routes.
 */
@Configuration(proxyBeanMethods = false)
class Pgvs3StreamsWebConfiguration {
}
