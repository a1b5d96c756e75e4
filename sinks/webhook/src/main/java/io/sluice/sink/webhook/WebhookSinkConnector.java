package io.sluice.sink.webhook;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.sluice.sink.core.connector.SinkConnectors;
import io.sluice.sink.core.connector.SluiceSinkConnector;
import io.sluice.sink.webhook.state.StateDatabase;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * Sends a PostgreSQL database's changes to webhook subscribers: each change is written once to
 * a durable outbox, and each subscription delivers it from its own queue, signed the Standard
 * Webhooks way, tried again while its receiver fails, and logged.
 */
public class WebhookSinkConnector extends SluiceSinkConnector {

    public WebhookSinkConnector() {
        super(WebhookSinkConfig.CONFIG_DEF, WebhookSinkConfig::new, WebhookSinkTask.class);
    }

    /** Every error at once: the keys, each declared subscription's options, then whether the state database answers. */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config result = super.validate(connectorConfigs);
        SinkConnectors.Checked keys = SinkConnectors.checkKeys(result, connectorConfigs);
        List<String> errors = new ArrayList<>();
        WebhookSinkConfig.subscriptions(connectorConfigs, errors);
        if (!errors.isEmpty()) {
            ConfigValue subscriptions = keys.byName().get(WebhookSinkConfig.SUBSCRIPTIONS);
            errors.forEach(subscriptions::addErrorMessage);
        }
        if (keys.hasErrors() || !errors.isEmpty()) {
            return result;
        }
        WebhookSinkConfig config = new WebhookSinkConfig(connectorConfigs);
        List<String> crossKey = config.crossKeyErrors();
        if (!crossKey.isEmpty()) {
            crossKey.forEach(keys.byName().get(WebhookSinkConfig.API_TOKEN)::addErrorMessage);
            return result;
        }
        StateDatabase state = config.state();
        try (Connection c = state.open("validate")) {
            c.isValid(5);
        } catch (ConnectException | SQLException e) {
            keys.byName().get(WebhookSinkConfig.STATE_URL).addErrorMessage(e.getMessage());
        }
        return result;
    }

    /** A new signing secret for a subscription (what {@code sluice webhooks secret} prints). */
    public static String newSigningSecret() {
        return io.sluice.sink.webhook.signing.SigningSecret.generate(new java.security.SecureRandom());
    }
}
