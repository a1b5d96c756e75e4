package io.sluice.testing;

import java.util.function.Supplier;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Injects a JVM-wide shared service of one type into test methods and constructors. */
public abstract class SharedServiceResolver<T> implements ParameterResolver {

    private final Class<T> type;
    private final Supplier<T> shared;

    protected SharedServiceResolver(Class<T> type, Supplier<T> shared) {
        this.type = type;
        this.shared = shared;
    }

    @Override
    public final boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == type;
    }

    @Override
    public final Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return shared.get();
    }
}
