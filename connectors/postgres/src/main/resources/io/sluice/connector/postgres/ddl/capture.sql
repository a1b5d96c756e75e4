-- Sluice DDL capture. Installed by `sluice init` (and by the source connector when it may);
-- removed by `sluice teardown` once no pipeline of the database uses it. Every statement is
-- safe to run again.
--
-- After each DDL command the event triggers emit one transactional logical message (prefix
-- 'sluice.ddl') holding the statement and the definition of every table it touched, next to
-- the definition the table had before (kept in sluice_capture.tables), so a renamed or dropped
-- column can be told from a new one. The message is decoded in order with the rows around it.
-- A table created under a pipeline's include patterns is added to that pipeline's publication
-- in the same transaction, so its first rows are streamed too.

-- Not "sluice": with the default search_path ("$user", public) a role named sluice would
-- create its tables in a schema of that name.
CREATE SCHEMA IF NOT EXISTS sluice_capture;

-- The last definition the triggers saw of each table, by oid.
CREATE TABLE IF NOT EXISTS sluice_capture.tables (
    relid oid PRIMARY KEY,
    definition jsonb NOT NULL
);

-- Which tables each Sluice-managed publication must take as they are created: anchored
-- regular expressions matched against schema || chr(1) || table (of the table or one of its
-- partition ancestors).
CREATE TABLE IF NOT EXISTS sluice_capture.publications (
    publication name PRIMARY KEY,
    includes text[] NOT NULL,
    excludes text[] NOT NULL
);

CREATE OR REPLACE FUNCTION sluice_capture.table_definition(r oid) RETURNS jsonb
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $fn$
SELECT jsonb_build_object(
    'oid', c.oid,
    'schema', n.nspname,
    'name', c.relname,
    'partitioned', c.relkind = 'p',
    'partitionOf', (SELECT jsonb_build_array(pn.nspname, p.relname)
                      FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace pn ON pn.oid = p.relnamespace
                     WHERE i.inhrelid = c.oid AND c.relispartition),
    'partitionBound', CASE WHEN c.relispartition THEN pg_get_expr(c.relpartbound, c.oid) END,
    'partitionKey', CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END,
    'ancestors', coalesce((SELECT jsonb_agg(jsonb_build_array(an.nspname, ac.relname) ORDER BY a.depth)
                             FROM pg_partition_ancestors(c.oid) WITH ORDINALITY AS a(relid, depth)
                             JOIN pg_class ac ON ac.oid = a.relid JOIN pg_namespace an ON an.oid = ac.relnamespace
                            WHERE a.relid <> c.oid), '[]'),
    'columns', coalesce((SELECT jsonb_agg(jsonb_build_object(
                    'num', a.attnum,
                    'name', a.attname,
                    'type', format_type(a.atttypid, a.atttypmod),
                    'typeName', t.typname,
                    'notNull', a.attnotnull,
                    'default', CASE WHEN a.attgenerated = '' THEN pg_get_expr(d.adbin, d.adrelid) END,
                    'generated', CASE WHEN a.attgenerated <> '' THEN pg_get_expr(d.adbin, d.adrelid) END,
                    'enumValues', (SELECT jsonb_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = a.atttypid))
                    ORDER BY a.attnum)
                  FROM pg_attribute a
                  JOIN pg_type t ON t.oid = a.atttypid
                  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                 WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped), '[]'),
    'primaryKey', coalesce((SELECT jsonb_agg(a.attname ORDER BY u.ord)
                              FROM pg_constraint k, unnest(k.conkey) WITH ORDINALITY AS u(num, ord)
                              JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = u.num
                             WHERE k.conrelid = c.oid AND k.contype = 'p'), '[]'),
    -- Indexes as "USING method (columns) ...": the part of pg_get_indexdef after the table's name.
    'indexes', coalesce((SELECT jsonb_agg(jsonb_build_object(
                    'name', ic.relname,
                    'unique', i.indisunique,
                    'definition', substr(pg_get_indexdef(i.indexrelid),
                                         strpos(pg_get_indexdef(i.indexrelid), ' ' || quote_ident(n.nspname) || '.' || quote_ident(c.relname) || ' USING ')
                                         + length(quote_ident(n.nspname) || '.' || quote_ident(c.relname)) + 2),
                    'constraint', k.conname,
                    'constraintDefinition', CASE WHEN k.oid IS NOT NULL THEN pg_get_constraintdef(k.oid) END)
                    ORDER BY ic.relname)
                  FROM pg_index i
                  JOIN pg_class ic ON ic.oid = i.indexrelid
                  LEFT JOIN pg_constraint k ON k.conindid = i.indexrelid AND k.conrelid = c.oid AND k.contype IN ('p', 'u', 'x')
                 WHERE i.indrelid = c.oid), '[]'),
    -- Check and foreign-key constraints declared on the table itself: a partition inherits its
    -- parent's, and the target's partition gets them the same way.
    'constraints', coalesce((SELECT jsonb_agg(jsonb_build_object(
                    'name', k.conname,
                    'type', k.contype,
                    'definition', pg_get_constraintdef(k.oid),
                    -- {schema, name, the name as the definition writes it}
                    'references', (SELECT jsonb_build_array(fn.nspname, f.relname, quote_ident(fn.nspname) || '.' || quote_ident(f.relname))
                                     FROM pg_class f JOIN pg_namespace fn ON fn.oid = f.relnamespace WHERE f.oid = k.confrelid))
                    ORDER BY k.conname)
                  FROM pg_constraint k
                 WHERE k.conrelid = c.oid AND k.contype IN ('c', 'f') AND k.conislocal AND k.conparentid = 0), '[]'))
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.oid = r AND c.relkind IN ('r', 'p') AND c.relpersistence = 'p'
   AND n.nspname NOT IN ('sluice_capture', 'pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%'
$fn$;

-- Adds a table to every Sluice publication whose patterns select it and which does not have it yet.
CREATE OR REPLACE FUNCTION sluice_capture.publish_if_selected(def jsonb) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    names text[];
    cap record;
BEGIN
    SELECT array_agg(x->>0 || chr(1) || (x->>1)) INTO names
      FROM jsonb_array_elements(jsonb_build_array(jsonb_build_array(def->>'schema', def->>'name')) || (def->'ancestors')) AS x;
    FOR cap IN
        SELECT p.pubname FROM sluice_capture.publications s JOIN pg_publication p ON p.pubname = s.publication
         WHERE NOT p.puballtables
           AND EXISTS (SELECT 1 FROM unnest(s.includes) re, unnest(names) nm WHERE nm ~ re)
           AND NOT EXISTS (SELECT 1 FROM unnest(s.excludes) re, unnest(names) nm WHERE nm ~ re)
           AND NOT EXISTS (SELECT 1 FROM pg_publication_rel pr WHERE pr.prpubid = p.oid AND pr.prrelid = (def->>'oid')::oid)
           -- UNLOGGED tables cannot be published (adding one would fail the user's DDL); their changes are not in the WAL.
           AND (SELECT c.relpersistence FROM pg_class c WHERE c.oid = (def->>'oid')::oid) = 'p'
    LOOP
        EXECUTE format('ALTER PUBLICATION %I ADD TABLE %I.%I', cap.pubname, def->>'schema', def->>'name');
    END LOOP;
END
$fn$;

-- The message, in the DDL's transaction, so it is decoded in its place among the rows.
CREATE OR REPLACE FUNCTION sluice_capture.emit(tag text, tables jsonb) RETURNS void
LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $fn$
SELECT pg_logical_emit_message(true, 'sluice.ddl', jsonb_build_object('tag', tag, 'statement', current_query(), 'tables', tables)::text)
 WHERE jsonb_array_length(tables) > 0
$fn$;

CREATE OR REPLACE FUNCTION sluice_capture.on_ddl_command_end() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    r oid;
    def jsonb;
    previous jsonb;
    has_rows boolean;
    tables jsonb := '[]';
BEGIN
    -- Partitioned tables before their partitions: a sink changes a partition's inherited columns
    -- through its parent.
    FOR r IN
      SELECT u.relid FROM (
        SELECT CASE
                   WHEN c.classid = 'pg_class'::regclass AND k.relkind IN ('r', 'p') THEN c.objid
                   WHEN c.classid = 'pg_class'::regclass AND k.relkind IN ('i', 'I') THEN (SELECT indrelid FROM pg_index WHERE indexrelid = c.objid)
                   WHEN c.classid = 'pg_constraint'::regclass THEN (SELECT conrelid FROM pg_constraint WHERE oid = c.objid)
               END
          FROM pg_event_trigger_ddl_commands() c
          LEFT JOIN pg_class k ON c.classid = 'pg_class'::regclass AND k.oid = c.objid
        UNION
        -- A partitioned table's command may change its partitions (a type change recurses to them;
        -- ATTACH and DETACH PARTITION name only the parent): they are read again, the detached
        -- ones found by the parent their last definition names.
        SELECT x.relid
          FROM pg_event_trigger_ddl_commands() c
          JOIN pg_class k ON c.classid = 'pg_class'::regclass AND k.oid = c.objid AND k.relkind = 'p'
          JOIN pg_namespace kn ON kn.oid = k.relnamespace
          CROSS JOIN LATERAL (SELECT i.inhrelid FROM pg_inherits i WHERE i.inhparent = k.oid
                              UNION
                              SELECT d.relid FROM sluice_capture.tables d
                               WHERE d.definition->'partitionOf' = jsonb_build_array(kn.nspname, k.relname)) AS x(relid)
        UNION
        -- A changed type (an enum's new or renamed label) changes the tables whose columns use it.
        SELECT a.attrelid
          FROM pg_event_trigger_ddl_commands() c
          JOIN pg_attribute a ON a.atttypid = c.objid AND a.attnum > 0 AND NOT a.attisdropped
         WHERE c.classid = 'pg_type'::regclass) AS u(relid)
       WHERE u.relid IS NOT NULL AND u.relid <> 0
       ORDER BY (SELECT count(*) FROM pg_partition_ancestors(u.relid)), u.relid
    LOOP
        def := sluice_capture.table_definition(r);
        CONTINUE WHEN def IS NULL;
        SELECT d.definition INTO previous FROM sluice_capture.tables d WHERE d.relid = r;
        IF previous IS NULL OR previous->>'schema' <> def->>'schema' OR previous->>'name' <> def->>'name' THEN
            -- New under this name: the publication may have to take it, and rows it came with must be copied.
            PERFORM sluice_capture.publish_if_selected(def);
            EXECUTE format('SELECT EXISTS (SELECT 1 FROM ONLY %I.%I)', def->>'schema', def->>'name') INTO STRICT has_rows;
            def := def || jsonb_build_object('hasRows', has_rows);
        END IF;
        IF previous IS DISTINCT FROM (def - 'hasRows') THEN
            tables := tables || jsonb_build_array(def || jsonb_build_object('previous', previous));
            INSERT INTO sluice_capture.tables AS d VALUES (r, def - 'hasRows')
                ON CONFLICT (relid) DO UPDATE SET definition = EXCLUDED.definition;
        END IF;
    END LOOP;
    PERFORM sluice_capture.emit(tg_tag, tables);
END
$fn$;

CREATE OR REPLACE FUNCTION sluice_capture.on_sql_drop() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    tables jsonb := '[]';
    gone record;
    r oid;
    def jsonb;
BEGIN
    FOR gone IN
        DELETE FROM sluice_capture.tables d USING pg_event_trigger_dropped_objects() o
         WHERE o.object_type = 'table' AND o.objid = d.relid
        RETURNING d.relid, d.definition
    LOOP
        tables := tables || jsonb_build_array(jsonb_build_object('oid', gone.relid, 'schema', gone.definition->>'schema',
            'name', gone.definition->>'name', 'dropped', true, 'previous', gone.definition));
    END LOOP;
    -- A dropped index changes its table, which stays: no ddl_command_end reports that.
    IF tg_tag = 'DROP INDEX' THEN
        FOR r IN
            SELECT DISTINCT d.relid FROM pg_event_trigger_dropped_objects() o, sluice_capture.tables d, jsonb_array_elements(d.definition->'indexes') x
             WHERE o.object_type = 'index' AND d.definition->>'schema' = o.schema_name AND x->>'name' = o.object_name
        LOOP
            def := sluice_capture.table_definition(r);
            CONTINUE WHEN def IS NULL;
            tables := tables || jsonb_build_array(def || jsonb_build_object('previous', (SELECT definition FROM sluice_capture.tables WHERE relid = r)));
            UPDATE sluice_capture.tables SET definition = def WHERE relid = r;
        END LOOP;
    END IF;
    PERFORM sluice_capture.emit(tg_tag, tables);
END
$fn$;

-- Tables that exist now and are not known yet: their definitions are the "before" of their first change.
INSERT INTO sluice_capture.tables
SELECT relid, definition FROM (
    SELECT c.oid AS relid, sluice_capture.table_definition(c.oid) AS definition FROM pg_class c
     WHERE c.relkind IN ('r', 'p') AND NOT EXISTS (SELECT 1 FROM sluice_capture.tables t WHERE t.relid = c.oid)) d
 WHERE definition IS NOT NULL
ON CONFLICT (relid) DO NOTHING;

DO $do$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'sluice_ddl_command_end') THEN
        CREATE EVENT TRIGGER sluice_ddl_command_end ON ddl_command_end EXECUTE FUNCTION sluice_capture.on_ddl_command_end();
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_event_trigger WHERE evtname = 'sluice_sql_drop') THEN
        CREATE EVENT TRIGGER sluice_sql_drop ON sql_drop EXECUTE FUNCTION sluice_capture.on_sql_drop();
    END IF;
END
$do$;
