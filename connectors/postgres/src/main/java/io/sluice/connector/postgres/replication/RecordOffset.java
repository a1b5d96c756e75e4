package io.sluice.connector.postgres.replication;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * A change record's source offset: the stream's fixed entries and the change's own, as two
 * arrays. Connect takes a record's offset as a map; a {@code HashMap} filled for every change
 * was a sixth of all the stream allocated (JFR, a 1M-row UPDATE), and hashing into it a share of
 * the reading thread's time. Immutable, compared and hashed as any map.
 */
final class RecordOffset extends AbstractMap<String, Object> {

    private final String[] keys;
    private final Object[] values;

    private RecordOffset(String[] keys, Object[] values) {
        this.keys = keys;
        this.values = values;
    }

    /**
     * The offsets of one stream: its {@code fixed} entries, then values for {@code own} keys given
     * per record (an own key also in {@code fixed} takes the record's value).
     */
    static Layout layout(Map<String, ?> fixed, String... own) {
        return new Layout(fixed, own);
    }

    /** The keys every offset of a stream has, and the values all of them share. */
    static final class Layout {
        private final String[] keys;
        private final Object[] fixedValues;
        private final int firstOwn;

        private Layout(Map<String, ?> fixed, String... own) {
            Set<String> ownKeys = Set.of(own); // refuses a key named twice
            String[] k = new String[fixed.size() + own.length];
            Object[] v = new Object[k.length];
            int n = 0;
            for (Map.Entry<String, ?> e : fixed.entrySet()) {
                if (!ownKeys.contains(e.getKey())) {
                    k[n] = e.getKey();
                    v[n++] = e.getValue();
                }
            }
            firstOwn = n;
            for (String key : own) {
                k[n++] = key;
            }
            this.keys = Arrays.copyOf(k, n);
            this.fixedValues = Arrays.copyOf(v, n);
        }

        /** An offset with these values for the own keys, in the order the layout was given them. */
        RecordOffset of(Object... own) {
            if (own.length != keys.length - firstOwn) {
                throw new IllegalArgumentException(own.length + " values for " + (keys.length - firstOwn) + " keys");
            }
            Object[] v = fixedValues.clone();
            System.arraycopy(own, 0, v, firstOwn, own.length);
            return new RecordOffset(keys, v);
        }
    }

    /** This offset with {@code key} set to {@code value}: replaced when present, added when not. */
    RecordOffset with(String key, Object value) {
        int i = indexOf(key);
        if (i >= 0) {
            Object[] v = values.clone();
            v[i] = value;
            return new RecordOffset(keys, v);
        }
        String[] k = Arrays.copyOf(keys, keys.length + 1);
        Object[] v = Arrays.copyOf(values, values.length + 1);
        k[keys.length] = key;
        v[values.length] = value;
        return new RecordOffset(k, v);
    }

    private int indexOf(Object key) {
        for (int i = 0; i < keys.length; i++) {
            if (keys[i].equals(key)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public Object get(Object key) {
        int i = indexOf(key);
        return i < 0 ? null : values[i];
    }

    @Override
    public boolean containsKey(Object key) {
        return indexOf(key) >= 0;
    }

    @Override
    public int size() {
        return keys.length;
    }

    @Override
    public Set<Map.Entry<String, Object>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<String, Object>> iterator() {
                return new Iterator<>() {
                    private int next;

                    @Override
                    public boolean hasNext() {
                        return next < keys.length;
                    }

                    @Override
                    public Map.Entry<String, Object> next() {
                        if (next >= keys.length) {
                            throw new NoSuchElementException();
                        }
                        int i = next++;
                        return new AbstractMap.SimpleImmutableEntry<>(keys[i], values[i]);
                    }
                };
            }

            @Override
            public int size() {
                return keys.length;
            }
        };
    }
}
