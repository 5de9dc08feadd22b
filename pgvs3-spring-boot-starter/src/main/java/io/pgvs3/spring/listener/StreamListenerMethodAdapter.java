package io.pgvs3.spring.listener;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;

import io.pgvs3.core.stream.ReceivedMessage;

import org.springframework.core.ResolvableType;

/**
 * Adapts a {@code @StreamListener} method to the container. The method takes exactly one parameter:
 * <ul>
 * <li>{@code T} or {@code StreamMessage<T>}: called once per message;</li>
 * <li>{@code List<T>} or {@code List<StreamMessage<T>>}: called once per batch.</li>
 * </ul>
 * {@code T} is converted by the {@link StreamMessageConverter}.
 */
public class StreamListenerMethodAdapter {

    private final MethodInvoker invoker;
    private final StreamMessageConverter converter;
    private final boolean batch;
    private final boolean wrapped;
    private final Type payloadType;
    private final int payloadIndex;
    private final int acknowledgmentIndex;

    public StreamListenerMethodAdapter(Object bean, Method method, StreamMessageConverter converter) {
        int count = method.getParameterCount();
        int ack = -1;
        for (int i = 0; i < count; i++) {
            if (Acknowledgment.class.equals(method.getParameterTypes()[i])) {
                ack = i;
            }
        }
        if (count - (ack >= 0 ? 1 : 0) != 1 || count > 2) {
            throw new IllegalStateException("@StreamListener method " + method
                    + " must take one parameter: T, StreamMessage<T>, List<T> or List<StreamMessage<T>>, "
                    + "and may take an Acknowledgment besides");
        }
        this.acknowledgmentIndex = ack;
        this.payloadIndex = ack == 0 ? 1 : 0;
        this.invoker = new MethodInvoker(bean, method);
        this.converter = converter;
        ResolvableType parameter = ResolvableType.forMethodParameter(method, payloadIndex);
        this.batch = List.class.equals(parameter.resolve());
        ResolvableType element = batch ? parameter.getGeneric(0) : parameter;
        this.wrapped = StreamMessage.class.equals(element.resolve());
        ResolvableType payload = wrapped ? element.getGeneric(0) : element;
        Type resolved = payload.getType();
        this.payloadType = payload.resolve() == null ? Object.class : resolved;
    }

    public boolean isBatch() {
        return batch;
    }

    /** Whether the method acknowledges by itself (it declares an {@link Acknowledgment} parameter). */
    public boolean isManual() {
        return acknowledgmentIndex >= 0;
    }

    /** Calls the method for one message (single-message listeners). */
    public void onMessage(ReceivedMessage message, long batchId) {
        onMessage(message, batchId, null);
    }

    public void onMessage(ReceivedMessage message, long batchId, Acknowledgment acknowledgment) {
        invoker.invoke(arguments(argument(message, batchId), acknowledgment));
    }

    /** Calls the method for a whole batch (batch listeners). */
    public void onBatch(List<ReceivedMessage> messages, long batchId) {
        onBatch(messages, batchId, null);
    }

    public void onBatch(List<ReceivedMessage> messages, long batchId, Acknowledgment acknowledgment) {
        List<Object> arguments = new ArrayList<>(messages.size());
        for (ReceivedMessage message : messages) {
            arguments.add(argument(message, batchId));
        }
        invoker.invoke(arguments(arguments, acknowledgment));
    }

    private Object[] arguments(Object payload, Acknowledgment acknowledgment) {
        Object[] values = new Object[acknowledgmentIndex >= 0 ? 2 : 1];
        values[payloadIndex] = payload;
        if (acknowledgmentIndex >= 0) {
            values[acknowledgmentIndex] = acknowledgment;
        }
        return values;
    }

    private Object argument(ReceivedMessage message, long batchId) {
        Object payload = converter.convert(message, payloadType);
        if (!wrapped) {
            return payload;
        }
        return new StreamMessage<>(message.id(), message.seq(), message.type(), payload, message.headers(),
                message.retryCount(), batchId, message.createdAt());
    }

    @Override
    public String toString() {
        return invoker.toString();
    }
}
