package io.sluice.runtime;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * Drawn changes to SubsetIT's shop, made through a {@link SubsetStreamModel} (so the model
 * follows each one): {@link #next} adds rows of every table (new regions, customers with or
 * without referrers and favourite orders, orders, lines of new and old products, categories,
 * audit rows), changes columns no key uses, deletes lines, and orders and products it made;
 * {@link #repoint} points one foreign key elsewhere, moves a customer to another region or gives a
 * line a new key. The source's keys hold throughout: nothing is deleted that a row references.
 */
final class ShopWorkload {

    private final SubsetStreamModel model;
    private final Random random;
    private final Set<String> pinnedOrders = new HashSet<>();
    private final Set<String> madeOrders = new HashSet<>();
    private final Set<String> madeProducts = new HashSet<>();
    private final Set<String> moved = new HashSet<>();
    private int nextId = 100_000;

    ShopWorkload(SubsetStreamModel model, Random random) {
        this.model = model;
        this.random = random;
        model.rows("customers").values().forEach(c -> {
            if (c.get("favorite_order") != null) {
                pinnedOrders.add(c.get("favorite_order"));
            }
        });
    }

    /** The statements of one drawn change that reads no row another change of its batch alters. */
    List<String> next() {
        int draw = random.nextInt(100);
        String id = Integer.toString(nextId++);
        if (draw < 8) {
            String favorite = random.nextInt(10) < 3 ? any("orders") : null;
            if (favorite != null) {
                pinnedOrders.add(favorite);
            }
            return List.of(model.insert("customers", row("id", id, "region", any("regions"),
                    "referred_by", random.nextBoolean() ? any("customers") : null, "favorite_order", favorite, "email", "n" + id + "@shop.test")));
        }
        if (draw < 26) {
            madeOrders.add(id);
            return List.of(model.insert("orders", row("id", id, "customer_id", any("customers"), "placed", "2026-0" + (1 + random.nextInt(9))
                    + "-1" + random.nextInt(10))));
        }
        if (draw < 50) {
            String order = any("orders");
            int line = nextLine(order);
            return List.of(model.insert("order_lines", row("order_id", order, "line", Integer.toString(line), "product_id", any("products"),
                    "qty", Integer.toString(1 + random.nextInt(9)))));
        }
        if (draw < 55) {
            madeProducts.add(id);
            return List.of(model.insert("products", row("id", id, "category_id", any("categories"), "name", "new product " + id)));
        }
        if (draw < 58) {
            return List.of(model.insert("categories", row("id", id, "parent_id", random.nextBoolean() ? any("categories") : null,
                    "name", "new cat " + id)));
        }
        if (draw < 60) {
            return List.of(model.insert("regions", row("code", "r" + id, "name", "region " + id)));
        }
        if (draw < 65) {
            return List.of(model.insert("audit", row("customer_id", any("customers"), "note", "new note " + id)));
        }
        if (draw < 70) {
            return List.of(model.update("customers", anyKey("customers"), "email", "changed" + id + "@shop.test"));
        }
        if (draw < 75) {
            return List.of(model.update("orders", anyKey("orders"), "placed", "2025-12-" + (10 + random.nextInt(20))));
        }
        if (draw < 80) {
            return List.of(model.update("order_lines", anyKey("order_lines"), "qty", Integer.toString(random.nextInt(100))));
        }
        if (draw < 83) {
            return List.of(model.update("products", anyKey("products"), "name", "renamed " + id));
        }
        if (draw < 92) {
            return List.of(model.delete("order_lines", anyKey("order_lines")));
        }
        if (draw < 97) {
            List<String> order = madeOrders.stream().filter(o -> !pinnedOrders.contains(o)).findFirst().map(List::of).orElse(null);
            if (order == null) {
                return List.of();
            }
            madeOrders.remove(order.get(0));
            List<String> out = new ArrayList<>();
            for (List<String> line : new ArrayList<>(model.rows("order_lines").keySet())) {
                if (line.get(0).equals(order.get(0))) {
                    out.add(model.delete("order_lines", line));
                }
            }
            out.add(model.delete("orders", order));
            return out;
        }
        for (String product : new ArrayList<>(madeProducts)) {
            boolean used = model.rows("order_lines").values().stream().anyMatch(l -> l.get("product_id").equals(product));
            if (!used) {
                madeProducts.remove(product);
                return List.of(model.delete("products", List.of(product)));
            }
        }
        return List.of();
    }

    /** One foreign key pointed elsewhere, or a customer moved to another region (each customer once). */
    List<String> repoint() {
        switch (random.nextInt(8)) {
            case 0 -> {
                List<String> customer = anyKey("customers");
                if (!moved.add(customer.get(0))) {
                    return List.of();
                }
                String region = random.nextBoolean() ? "eu" : any("regions");
                return List.of(model.update("customers", customer, "region", region));
            }
            case 1 -> {
                return List.of(model.update("customers", anyKey("customers"), "referred_by", random.nextInt(4) == 0 ? null : any("customers")));
            }
            case 2 -> {
                String order = any("orders");
                pinnedOrders.add(order);
                return List.of(model.update("customers", anyKey("customers"), "favorite_order", order));
            }
            case 3 -> {
                return List.of(model.update("order_lines", anyKey("order_lines"), "product_id", any("products")));
            }
            case 4 -> {
                return List.of(model.update("products", anyKey("products"), "category_id", any("categories")));
            }
            case 5 -> {
                return List.of(model.update("categories", anyKey("categories"), "parent_id", random.nextInt(4) == 0 ? null : any("categories")));
            }
            case 6 -> {
                return List.of(model.update("orders", anyKey("orders"), "customer_id", any("customers")));
            }
            default -> {
                // A line's key changes: the delete of its old key comes first, then the update.
                List<String> line = anyKey("order_lines");
                return List.of(model.rekey("order_lines", line, "line", Integer.toString(nextLine(line.get(0)))));
            }
        }
    }

    /** A line number the order has no line of. */
    private int nextLine(String order) {
        return 1 + model.rows("order_lines").keySet().stream().filter(k -> k.get(0).equals(order))
                .mapToInt(k -> Integer.parseInt(k.get(1))).max().orElse(0);
    }

    /** The single key column of a random row of the table. */
    private String any(String table) {
        return anyKey(table).get(0);
    }

    private List<String> anyKey(String table) {
        List<List<String>> keys = new ArrayList<>(model.rows(table).keySet());
        return keys.get(random.nextInt(keys.size()));
    }

    private static Map<String, String> row(String... pairs) {
        Map<String, String> row = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            row.put(pairs[i], pairs[i + 1]);
        }
        return row;
    }
}
