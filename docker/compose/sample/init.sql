-- A small shop to copy: runs once, when the source's data volume is new.
CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, email text NOT NULL, created timestamptz NOT NULL DEFAULT now());
CREATE TABLE orders (id bigserial PRIMARY KEY, customer int NOT NULL REFERENCES customers (id), total numeric(12,2) NOT NULL,
                     placed timestamptz NOT NULL DEFAULT now());
INSERT INTO customers SELECT g, 'Customer ' || g, 'customer' || g || '@example.com' FROM generate_series(1, 10000) g;
INSERT INTO orders (customer, total) SELECT 1 + g % 10000, (g % 500) * 1.5 FROM generate_series(1, 50000) g;
