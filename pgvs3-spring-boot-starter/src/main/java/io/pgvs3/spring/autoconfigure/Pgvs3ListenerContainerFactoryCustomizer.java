package io.pgvs3.spring.autoconfigure;

import io.pgvs3.spring.listener.Pgvs3ListenerContainerFactory;

/**
 * Adjusts the auto-configured {@link Pgvs3ListenerContainerFactory} (bean
 * {@value Pgvs3ListenerAutoConfiguration#CONTAINER_FACTORY_BEAN_NAME}) after it is built from
 * {@code pgvs3.listener.*} and {@code pgvs3.handler.*}, for example to set a transaction manager, a message converter
 * or polling settings, without declaring a factory of one's own. Customizers run in
 * {@link org.springframework.core.annotation.Order order}.
 */
@FunctionalInterface
public interface Pgvs3ListenerContainerFactoryCustomizer {

    void customize(Pgvs3ListenerContainerFactory factory);
}
