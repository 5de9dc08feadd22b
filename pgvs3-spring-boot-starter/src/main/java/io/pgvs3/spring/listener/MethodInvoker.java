package io.pgvs3.spring.listener;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

import org.springframework.aop.support.AopUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Calls a user method on its bean (or on the bean's proxy), rethrowing what the method threw.
 */
final class MethodInvoker {

    private final Object bean;
    private final Method method;

    MethodInvoker(Object bean, Method method) {
        this.bean = bean;
        this.method = AopUtils.selectInvocableMethod(method, bean.getClass());
        ReflectionUtils.makeAccessible(this.method);
    }

    Object invoke(Object... args) {
        try {
            return method.invoke(bean, args);
        }
        catch (InvocationTargetException ex) {
            Throwable cause = ex.getCause();
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new ListenerExecutionFailedException(method.getName() + " threw " + cause, cause);
        }
        catch (IllegalAccessException ex) {
            throw new IllegalStateException("Cannot call " + method, ex);
        }
    }

    @Override
    public String toString() {
        return method.getDeclaringClass().getSimpleName() + "." + method.getName();
    }
}
