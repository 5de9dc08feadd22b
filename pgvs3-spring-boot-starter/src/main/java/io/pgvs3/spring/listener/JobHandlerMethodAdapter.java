package io.pgvs3.spring.listener;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;

import io.pgvs3.core.job.Job;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.core.ResolvableType;

/**
 * Adapts a {@code @JobHandler} method to its container. A job's {@code args} is a JSON array: when the method
 * declares as many argument parameters as the array has elements, element {@code i} is converted to parameter
 * {@code i}; a method with one argument parameter and an array of another length receives the whole array.
 * A {@link JobContext} parameter may appear anywhere. The return value is written as the job's result.
 */
public class JobHandlerMethodAdapter {

    private final MethodInvoker invoker;
    private final JsonMapper mapper;
    private final Type[] parameterTypes;
    private final int contextIndex;
    private final int argumentCount;

    public JobHandlerMethodAdapter(Object bean, Method method, JsonMapper mapper) {
        this.invoker = new MethodInvoker(bean, method);
        this.mapper = mapper;
        int count = method.getParameterCount();
        this.parameterTypes = new Type[count];
        int context = -1;
        for (int i = 0; i < count; i++) {
            ResolvableType type = ResolvableType.forMethodParameter(method, i);
            if (JobContext.class.equals(type.resolve())) {
                if (context >= 0) {
                    throw new IllegalStateException("@JobHandler method " + method + " declares JobContext twice");
                }
                context = i;
            }
            parameterTypes[i] = type.resolve() == null ? Object.class : type.getType();
        }
        this.contextIndex = context;
        this.argumentCount = context >= 0 ? count - 1 : count;
    }

    /** Runs the job and returns its result as JSON ({@code null} for a void method or a null result). */
    public String invoke(Job job, JobContext context) {
        Object result = invoker.invoke(arguments(job, context));
        if (result == null) {
            return null;
        }
        try {
            return mapper.writeValueAsString(result);
        }
        catch (JacksonException ex) {
            throw new MessageConversionException("Cannot write the result of job " + job.id() + " as JSON: "
                    + ex.getOriginalMessage(), ex);
        }
    }

    private Object[] arguments(Job job, JobContext context) {
        Object[] values = new Object[parameterTypes.length];
        if (contextIndex >= 0) {
            values[contextIndex] = context;
        }
        if (argumentCount == 0) {
            return values;
        }
        JsonNode args = job.envelope() != null ? job.envelope().get("args") : null;
        if (args == null) {
            try {
                args = mapper.readTree(job.argsJson() == null ? "[]" : job.argsJson());
            }
            catch (JacksonException ex) {
                throw new MessageConversionException("Job " + job.id() + " has unreadable args", ex);
            }
        }
        List<JsonNode> elements = new ArrayList<>();
        if (args.isArray()) {
            args.forEach(elements::add);
        }
        else {
            elements.add(args);
        }
        boolean whole = argumentCount == 1 && elements.size() != 1;
        if (!whole && elements.size() != argumentCount) {
            throw new MessageConversionException("Job " + job.id() + " of type " + job.type() + " has "
                    + elements.size() + " args but its handler " + invoker + " takes " + argumentCount);
        }
        int element = 0;
        for (int i = 0; i < parameterTypes.length; i++) {
            if (i == contextIndex) {
                continue;
            }
            JsonNode value = whole ? args : elements.get(element++);
            values[i] = convert(job, value, parameterTypes[i]);
        }
        return values;
    }

    private Object convert(Job job, JsonNode value, Type type) {
        if (type instanceof Class<?> raw && JsonNode.class.isAssignableFrom(raw)) {
            // the args belong to the job's envelope, which the handler can also see: hand it a copy of its own
            value = value.deepCopy();
            if (type == JsonNode.class) {
                return value;
            }
        }
        try {
            return mapper.treeToValue(value, mapper.constructType(type));
        }
        catch (JacksonException ex) {
            throw new MessageConversionException("Cannot convert an argument of job " + job.id() + " to "
                    + type.getTypeName() + ": " + ex.getOriginalMessage(), ex);
        }
    }

    @Override
    public String toString() {
        return invoker.toString();
    }
}
