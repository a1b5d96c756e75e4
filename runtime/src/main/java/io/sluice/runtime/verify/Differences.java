package io.sluice.runtime.verify;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What differs in one table: the keys missing on the target, on it but not on the source, and
 * changed (each by its name in the report, with its columns' text for a repair), and the key
 * ranges too large to narrow down to rows.
 */
final class Differences {

    final Map<String, List<String>> missing = new TreeMap<>();
    final Map<String, List<String>> extra = new TreeMap<>();
    final Map<String, List<String>> changed = new TreeMap<>();
    final List<String> ranges = new ArrayList<>();

    void missing(List<String> key) {
        missing.put(KeySet.name(key), key);
    }

    void extra(List<String> key) {
        extra.put(KeySet.name(key), key);
    }

    void changed(List<String> key) {
        changed.put(KeySet.name(key), key);
    }

    boolean none() {
        return missing.isEmpty() && extra.isEmpty() && changed.isEmpty() && ranges.isEmpty();
    }

    /** Every key named, whatever its kind. */
    List<List<String>> keys() {
        List<List<String>> out = new ArrayList<>();
        for (Collection<List<String>> c : List.of(missing.values(), extra.values(), changed.values())) {
            out.addAll(c);
        }
        return out;
    }
}
