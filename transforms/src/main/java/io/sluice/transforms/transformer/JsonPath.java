package io.sluice.transforms.transformer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A path into a JSON document, in the common subset of JSONPath: {@code $.contact.email},
 * {@code $.phones[*].number}, {@code $.items[0]}, {@code $["odd key"]}, {@code $.*}.
 */
final class JsonPath {

    private sealed interface Step permits Field, Index, Any {
    }

    private record Field(String name) implements Step {
    }

    private record Index(int index) implements Step {
    }

    private record Any() implements Step {
    }

    /** Where the value found is: its container, and its name or place in it. */
    interface Slot {
        JsonNode get();

        void set(JsonNode value);
    }

    private final String text;
    private final List<Step> steps;

    private JsonPath(String text, List<Step> steps) {
        this.text = text;
        this.steps = steps;
    }

    static JsonPath parse(String text) {
        String t = text.strip();
        if (!t.startsWith("$")) {
            throw new IllegalArgumentException("json: path '" + text + "' must start with $, like $.contact.email");
        }
        List<Step> steps = new ArrayList<>();
        int i = 1;
        while (i < t.length()) {
            char c = t.charAt(i);
            if (c == '.') {
                int end = i + 1;
                while (end < t.length() && t.charAt(end) != '.' && t.charAt(end) != '[') {
                    end++;
                }
                String name = t.substring(i + 1, end);
                if (name.isEmpty()) {
                    throw new IllegalArgumentException("json: path '" + text + "' has an empty name at " + i);
                }
                steps.add(name.equals("*") ? new Any() : new Field(name));
                i = end;
            } else if (c == '[') {
                int end = t.indexOf(']', i);
                if (end < 0) {
                    throw new IllegalArgumentException("json: path '" + text + "' has an unclosed [ at " + i);
                }
                String inside = t.substring(i + 1, end).strip();
                if (inside.equals("*")) {
                    steps.add(new Any());
                } else if (inside.length() >= 2 && (inside.charAt(0) == '\'' || inside.charAt(0) == '"')
                        && inside.charAt(inside.length() - 1) == inside.charAt(0)) {
                    steps.add(new Field(inside.substring(1, inside.length() - 1)));
                } else {
                    try {
                        steps.add(new Index(Integer.parseInt(inside)));
                    } catch (NumberFormatException e) {
                        throw new IllegalArgumentException("json: path '" + text + "' has [" + inside + "]; use [n], [*] or ['name']");
                    }
                }
                i = end + 1;
            } else {
                throw new IllegalArgumentException("json: path '" + text + "' has '" + c + "' at " + i + " where . or [ belongs");
            }
        }
        return new JsonPath(text, steps);
    }

    /** Calls {@code visit} for every slot the path reaches in the document. */
    void forEach(JsonNode root, Consumer<Slot> visit) {
        walk(root, 0, visit);
    }

    private void walk(JsonNode node, int step, Consumer<Slot> visit) {
        if (step == steps.size() - 1) {
            slots(node, steps.get(step)).forEach(visit);
            return;
        }
        for (Slot slot : slots(node, steps.get(step))) {
            walk(slot.get(), step + 1, visit);
        }
    }

    private static List<Slot> slots(JsonNode node, Step step) {
        List<Slot> out = new ArrayList<>();
        if (node instanceof ObjectNode object) {
            if (step instanceof Field f && object.has(f.name())) {
                out.add(objectSlot(object, f.name()));
            } else if (step instanceof Any) {
                object.fieldNames().forEachRemaining(name -> out.add(objectSlot(object, name)));
            }
        } else if (node instanceof ArrayNode array) {
            if (step instanceof Index ix && ix.index() >= 0 && ix.index() < array.size()) {
                out.add(arraySlot(array, ix.index()));
            } else if (step instanceof Any) {
                for (int i = 0; i < array.size(); i++) {
                    out.add(arraySlot(array, i));
                }
            }
        }
        return out;
    }

    private static Slot objectSlot(ObjectNode object, String name) {
        return new Slot() {
            public JsonNode get() {
                return object.get(name);
            }

            public void set(JsonNode value) {
                object.set(name, value);
            }
        };
    }

    private static Slot arraySlot(ArrayNode array, int index) {
        return new Slot() {
            public JsonNode get() {
                return array.get(index);
            }

            public void set(JsonNode value) {
                array.set(index, value);
            }
        };
    }

    boolean root() {
        return steps.isEmpty();
    }

    @Override
    public String toString() {
        return text;
    }
}
