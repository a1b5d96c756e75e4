package io.sluice.testing.postgres;

import java.sql.SQLException;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Gives each test class a fresh database on the shared {@link PostgresServer}, injected as a
 * {@link TestDatabase} parameter, and drops it (with its replication slots) after the class.
 * <pre>{@code
 * @ExtendWith(PostgresExtension.class)
 * class SnapshotIT {
 *     @Test void copies(TestDatabase db) { ... }
 * }
 * }</pre>
 */
public final class PostgresExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(PostgresExtension.class);

    @Override
    public void beforeAll(ExtensionContext context) throws SQLException {
        context.getStore(NAMESPACE).put(TestDatabase.class, TestDatabases.create(context.getRequiredTestClass()));
    }

    @Override
    public void afterAll(ExtensionContext context) throws SQLException {
        TestDatabase db = context.getStore(NAMESPACE).remove(TestDatabase.class, TestDatabase.class);
        if (db != null) {
            TestDatabases.drop(db);
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TestDatabase.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        TestDatabase db = context.getStore(NAMESPACE).get(TestDatabase.class, TestDatabase.class);
        if (db == null) {
            throw new ParameterResolutionException("No test database: register PostgresExtension on the test class");
        }
        return db;
    }
}
