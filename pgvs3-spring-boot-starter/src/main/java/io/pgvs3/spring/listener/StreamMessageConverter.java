package io.pgvs3.spring.listener;

import java.lang.reflect.Type;

import io.pgvs3.core.stream.ReceivedMessage;

/**
 * Turns a received message's payload into the type a listener method asks for. The default implementation reads
 * the JSON payload with the application's Jackson mapper; a bean of this type replaces it, and
 * {@code @StreamListener(converter = "beanName")} picks one for a single listener.
 */
@FunctionalInterface
public interface StreamMessageConverter {

    Object convert(ReceivedMessage message, Type targetType);
}
