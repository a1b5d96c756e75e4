package io.sluice.runtime.verify;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.connector.postgres.SourceRows;
import io.sluice.sink.opensearch.OpenSearchDocuments;

/**
 * One table against its OpenSearch alias: the document the sink would write for every source row
 * (through its own conversion) against the documents the index holds, by id. Each document is
 * reduced to a 64-bit hash of its compared fields written canonically (fields sorted), so a table
 * of millions of rows is held as ids and hashes. A document the stream changed after the source's
 * point must be in one of the states {@link DocumentStates} allows it.
 */
final class IndexComparison {

    /** Ids named in a report, at most, per kind of difference. */
    static final int NAMED = 10;

    /**
     * What a comparison found.
     *
     * @param missing ids the source has and the index lacks
     * @param extra   ids the index has and the source lacks
     * @param changed ids both have, with other contents
     * @param keys    the source key (text, in key order) of each missing or changed id; of an extra id when the stream
     *                touched it
     */
    record Found(long sourceDocuments, long indexDocuments, Set<String> missing, Set<String> extra, Set<String> changed,
                 Map<String, String[]> keys) {
        boolean equal() {
            return missing.isEmpty() && extra.isEmpty() && changed.isEmpty();
        }
    }

    private IndexComparison() {
    }

    /** The index's documents by id, each as the hash of its compared fields, read in one scroll. */
    static Map<String, Long> held(OpenSearchDocuments documents, String alias, List<String> fields) {
        Map<String, Long> held = new HashMap<>();
        documents.each(alias, (id, body) -> held.put(id, hash(body, fields)));
        return held;
    }

    /**
     * Every row the source has in the snapshot {@code source} reads in, against the index's
     * documents; a document of {@code touched} must be in one of the states it names instead.
     *
     * @param held the index's documents (id to hash), emptied by the comparison
     */
    static Found compare(SourceRows rows, Connection source, OpenSearchDocuments documents, Map<String, Long> held, List<String> fields,
                         Map<String, DocumentStates.Accepted> touched) throws SQLException {
        long indexDocuments = held.size();
        long[] sourceDocuments = {0};
        Set<String> missing = new TreeSet<>();
        Set<String> changed = new TreeSet<>();
        Map<String, String[]> keys = new HashMap<>();
        rows.each(source, (key, value, texts) -> {
            sourceDocuments[0]++;
            String id = OpenSearchDocuments.id(key);
            if (touched.containsKey(id)) {
                return;
            }
            Long have = held.remove(id);
            if (have == null || have != hash(documents.body(value), fields)) {
                (have == null ? missing : changed).add(id);
                keys.put(id, rows.keyTexts(texts));
            }
        });
        Set<String> extra = new TreeSet<>();
        for (Map.Entry<String, DocumentStates.Accepted> e : touched.entrySet()) {
            Long have = held.remove(e.getKey());
            if (!e.getValue().takes(have)) {
                // Absent where it should be, changed where it should be absent or otherwise.
                (have == null ? missing : e.getValue().hashes().isEmpty() ? extra : changed).add(e.getKey());
                keys.put(e.getKey(), e.getValue().key());
            }
        }
        extra.addAll(held.keySet());
        return new Found(sourceDocuments[0], indexDocuments, missing, extra, changed, keys);
    }

    /** A hash of the document's compared fields, the same whatever the order of its fields. */
    static long hash(JsonNode body, List<String> fields) {
        StringBuilder text = new StringBuilder();
        for (String field : fields) {
            text.append('"').append(field).append("\":");
            canonical(body.get(field), text);
            text.append(',');
        }
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.toString().getBytes(StandardCharsets.UTF_8));
            long h = 0;
            for (int i = 0; i < 8; i++) {
                h = h << 8 | (digest[i] & 0xff);
            }
            return h;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** JSON with every object's fields sorted; an absent value and null alike. */
    private static void canonical(JsonNode node, StringBuilder out) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            out.append("null");
        } else if (node.isObject()) {
            Map<String, JsonNode> sorted = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                sorted.put(e.getKey(), e.getValue());
            }
            out.append('{');
            sorted.forEach((k, v) -> {
                out.append('"').append(k).append("\":");
                canonical(v, out);
                out.append(',');
            });
            out.append('}');
        } else if (node.isArray()) {
            out.append('[');
            node.forEach(v -> {
                canonical(v, out);
                out.append(',');
            });
            out.append(']');
        } else if (node.isNumber() && (node.isFloatingPointNumber() && !Double.isFinite(node.doubleValue()))) {
            out.append(node.asText());
        } else if (node.isNumber()) {
            // 1.50 and 1.5 are one number to the index: compare the value, not the text.
            out.append(node.decimalValue().stripTrailingZeros().toPlainString());
        } else {
            out.append(node.toString());
        }
    }
}
