-- Sluice DDL capture. Installed by `sluice init` (and by the source connector when it may), or
-- by a superuser running this file once per source database:
--     psql -d <database> -v ON_ERROR_STOP=1 -f sluice-ddl-capture.sql
-- The pipelines may then run as users that are not superusers. Removed by `sluice teardown`
-- (as a superuser) once no pipeline of the database uses it. Every statement is safe to run
-- again.
--
-- After each DDL command the event triggers emit one transactional logical message (prefix
-- 'sluice.ddl') holding the statement and the definition of every table it touched, next to
-- the definition the table had before (kept in sluice_capture.tables), so a renamed or dropped
-- column can be told from a new one. The message is decoded in order with the rows around it.
-- A table created under a pipeline's include patterns is added to that pipeline's publication,
-- with its row filter and column list, in the same transaction, so its first rows are streamed
-- too.

-- Not "sluice": with the default search_path ("$user", public) a role named sluice would
-- create its tables in a schema of that name.
CREATE SCHEMA IF NOT EXISTS sluice_capture;

-- The last definition the triggers saw of each table, by oid.
CREATE TABLE IF NOT EXISTS sluice_capture.tables (
    relid oid PRIMARY KEY,
    definition jsonb NOT NULL
);

-- The last definition the triggers saw of each object other than a table that they carry
-- (views, functions, procedures, triggers, domains, composite and enum types, extensions), by
-- catalog and oid: what a rename or an ALTER is told from.
CREATE TABLE IF NOT EXISTS sluice_capture.objects (
    classid oid NOT NULL,
    objid oid NOT NULL,
    definition jsonb NOT NULL,
    PRIMARY KEY (classid, objid)
);

-- Which tables each Sluice-managed publication must take as they are created: anchored
-- regular expressions matched against schema || chr(1) || table (of the table or one of its
-- partition ancestors).
CREATE TABLE IF NOT EXISTS sluice_capture.publications (
    publication name PRIMARY KEY,
    includes text[] NOT NULL,
    excludes text[] NOT NULL
);
-- The row filters and column lists a table takes in the publication as it is created (see publish_if_selected).
ALTER TABLE sluice_capture.publications ADD COLUMN IF NOT EXISTS rules jsonb NOT NULL DEFAULT '[]';

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
    -- By oid too: a partition attached to or detached from its parent is told from a renamed parent.
    'parentOid', (SELECT i.inhparent FROM pg_inherits i WHERE i.inhrelid = c.oid AND c.relispartition),
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

-- An object other than a table as the stream carries it: its kind, schema and name (a trigger's
-- are its table's, which selects it), an identity for statements, the statement that creates it
-- as it is, and for domains and composite types the parts an ALTER is worked out from. NULL for
-- what is not carried: tables and their indexes and sequences (table_definition has them),
-- members of extensions (the extension carries them), system schemas and Sluice's own.
CREATE OR REPLACE FUNCTION sluice_capture.object_definition(cls oid, obj oid) RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    d jsonb;
BEGIN
    IF EXISTS (SELECT 1 FROM pg_depend WHERE classid = cls AND objid = obj AND deptype = 'e') THEN
        RETURN NULL;
    END IF;
    IF cls = 'pg_class'::regclass THEN
        SELECT CASE c.relkind
               WHEN 'v' THEN jsonb_build_object('kind', 'view', 'schema', n.nspname, 'name', c.relname,
                    'identity', format('%I.%I', n.nspname, c.relname),
                    'create', format('CREATE OR REPLACE VIEW %I.%I%s AS %s', n.nspname, c.relname,
                        CASE WHEN c.reloptions IS NOT NULL THEN ' WITH (' || array_to_string(c.reloptions, ', ') || ')' ELSE '' END,
                        rtrim(pg_get_viewdef(c.oid), '; ' || chr(10))))
               END
          INTO d FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = obj;
    ELSIF cls = 'pg_proc'::regclass THEN
        SELECT jsonb_build_object('kind', CASE p.prokind WHEN 'p' THEN 'procedure' ELSE 'function' END, 'schema', n.nspname,
                'name', p.proname, 'identity', format('%I.%I(%s)', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid)),
                'arguments', pg_get_function_identity_arguments(p.oid), 'create', pg_get_functiondef(p.oid))
          INTO d FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = obj AND p.prokind IN ('f', 'p');
    ELSIF cls = 'pg_trigger'::regclass THEN
        SELECT jsonb_build_object('kind', 'trigger', 'schema', n.nspname, 'name', c.relname, 'trigger', t.tgname,
                'identity', format('%I ON %I.%I', t.tgname, n.nspname, c.relname), 'create', pg_get_triggerdef(t.oid))
          INTO d FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE t.oid = obj AND NOT t.tgisinternal;
    ELSIF cls = 'pg_type'::regclass THEN
        SELECT CASE t.typtype
               WHEN 'd' THEN jsonb_build_object('kind', 'domain', 'schema', n.nspname, 'name', t.typname,
                    'identity', format('%I.%I', n.nspname, t.typname),
                    'default', t.typdefault, 'notNull', t.typnotnull,
                    'constraints', coalesce((SELECT jsonb_object_agg(k.conname, pg_get_constraintdef(k.oid)) FROM pg_constraint k
                                              WHERE k.contypid = t.oid AND k.contype = 'c'), '{}'),
                    -- Created bare, then each constraint added: CREATE DOMAIN takes no NOT VALID one.
                    'create', format('CREATE DOMAIN %I.%I AS %s', n.nspname, t.typname, format_type(t.typbasetype, t.typtypmod))
                        || CASE WHEN t.typcollation <> 0 AND t.typcollation <> (SELECT b.typcollation FROM pg_type b WHERE b.oid = t.typbasetype)
                                THEN ' COLLATE ' || (SELECT format('%I.%I', cn.nspname, co.collname) FROM pg_collation co
                                                       JOIN pg_namespace cn ON cn.oid = co.collnamespace WHERE co.oid = t.typcollation) ELSE '' END
                        || CASE WHEN t.typdefault IS NOT NULL THEN ' DEFAULT ' || t.typdefault ELSE '' END
                        || CASE WHEN t.typnotnull THEN ' NOT NULL' ELSE '' END
                        || coalesce((SELECT string_agg(format('; ALTER DOMAIN %I.%I ADD CONSTRAINT %I %s', n.nspname, t.typname, k.conname,
                                                              pg_get_constraintdef(k.oid)), '' ORDER BY k.conname)
                                       FROM pg_constraint k WHERE k.contypid = t.oid AND k.contype = 'c'), ''))
               WHEN 'c' THEN (SELECT jsonb_build_object('kind', 'type', 'schema', n.nspname, 'name', t.typname,
                    'identity', format('%I.%I', n.nspname, t.typname),
                    'attributes', coalesce(jsonb_agg(jsonb_build_array(a.attnum, a.attname, format_type(a.atttypid, a.atttypmod)) ORDER BY a.attnum), '[]'),
                    'create', format('CREATE TYPE %I.%I AS (%s)', n.nspname, t.typname,
                        coalesce(string_agg(format('%I %s', a.attname, format_type(a.atttypid, a.atttypmod)), ', ' ORDER BY a.attnum), '')))
                    FROM pg_attribute a WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped)
               WHEN 'e' THEN jsonb_build_object('kind', 'enum', 'schema', n.nspname, 'name', t.typname,
                    'identity', format('%I.%I', n.nspname, t.typname),
                    'create', format('CREATE TYPE %I.%I AS ENUM (%s)', n.nspname, t.typname,
                        coalesce((SELECT string_agg(quote_literal(e.enumlabel), ', ' ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid), '')))
               END
          INTO d FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.oid = obj;
    ELSIF cls = 'pg_extension'::regclass THEN
        SELECT jsonb_build_object('kind', 'extension', 'schema', n.nspname, 'name', e.extname, 'identity', quote_ident(e.extname),
                'create', format('CREATE EXTENSION IF NOT EXISTS %I WITH SCHEMA %I', e.extname, n.nspname))
          INTO d FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.oid = obj;
    END IF;
    IF d IS NULL OR d->>'schema' IN ('sluice_capture', 'pg_catalog', 'information_schema')
       OR d->>'schema' LIKE 'pg\_toast%' OR d->>'schema' LIKE 'pg\_temp%' THEN
        RETURN NULL;
    END IF;
    RETURN d;
END
$fn$;

-- The statements that take an object from its previous definition (NULL: it is new) to the
-- current one; NULL when nothing is to be done (an enum's labels change with the tables that use
-- it). Renames keep what depends on the object; domains and composite types, which tables may
-- use, are altered in place rather than made again.
CREATE OR REPLACE FUNCTION sluice_capture.object_statements(prev jsonb, now jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    kind text := now->>'kind';
    word text := CASE now->>'kind' WHEN 'view' THEN 'VIEW' WHEN 'function' THEN 'FUNCTION' WHEN 'procedure' THEN 'PROCEDURE'
                                   WHEN 'domain' THEN 'DOMAIN' ELSE 'TYPE' END;
    out text[] := '{}';
    here text;
    k text;
    a jsonb;
    b jsonb;
BEGIN
    IF prev IS NULL THEN
        RETURN now->>'create';
    END IF;
    IF kind = 'trigger' THEN
        -- A trigger never moves to another table: it is made again under its (new) name.
        RETURN format('DROP TRIGGER IF EXISTS %I ON %I.%I; %s', prev->>'trigger', now->>'schema', now->>'name', now->>'create');
    END IF;
    IF kind IN ('enum', 'extension') THEN
        RETURN NULL;
    END IF;
    -- Renamed, then moved: the identity the next statement finds it by.
    here := CASE WHEN kind IN ('function', 'procedure') THEN format('%I.%I(%s)', prev->>'schema', prev->>'name', prev->>'arguments')
                 ELSE format('%I.%I', prev->>'schema', prev->>'name') END;
    IF prev->>'name' <> now->>'name' THEN
        out := out || format('ALTER %s %s RENAME TO %I', word, here, now->>'name');
        here := CASE WHEN kind IN ('function', 'procedure') THEN format('%I.%I(%s)', prev->>'schema', now->>'name', prev->>'arguments')
                     ELSE format('%I.%I', prev->>'schema', now->>'name') END;
    END IF;
    IF prev->>'schema' <> now->>'schema' THEN
        out := out || format('ALTER %s %s SET SCHEMA %I', word, here, now->>'schema');
    END IF;
    IF kind IN ('view', 'function', 'procedure') THEN
        out := out || (now->>'create');
    ELSIF kind = 'domain' THEN
        IF prev->>'default' IS DISTINCT FROM now->>'default' THEN
            out := out || format('ALTER DOMAIN %s %s', now->>'identity',
                                 CASE WHEN now->>'default' IS NULL THEN 'DROP DEFAULT' ELSE 'SET DEFAULT ' || (now->>'default') END);
        END IF;
        IF prev->>'notNull' IS DISTINCT FROM now->>'notNull' THEN
            out := out || format('ALTER DOMAIN %s %s NOT NULL', now->>'identity', CASE WHEN (now->>'notNull')::boolean THEN 'SET' ELSE 'DROP' END);
        END IF;
        FOR k IN SELECT jsonb_object_keys(prev->'constraints') LOOP
            IF (now->'constraints'->>k) IS DISTINCT FROM (prev->'constraints'->>k) THEN
                out := out || format('ALTER DOMAIN %s DROP CONSTRAINT IF EXISTS %I', now->>'identity', k);
            END IF;
        END LOOP;
        FOR k IN SELECT jsonb_object_keys(now->'constraints') LOOP
            IF (now->'constraints'->>k) IS DISTINCT FROM (prev->'constraints'->>k) THEN
                out := out || format('ALTER DOMAIN %s ADD CONSTRAINT %I %s', now->>'identity', k, now->'constraints'->>k);
            END IF;
        END LOOP;
    ELSIF kind = 'type' THEN
        -- Attributes by number, which a rename keeps.
        FOR a IN SELECT x FROM jsonb_array_elements(prev->'attributes') x LOOP
            SELECT y INTO b FROM jsonb_array_elements(now->'attributes') y WHERE y->>0 = a->>0;
            IF b IS NULL THEN
                out := out || format('ALTER TYPE %s DROP ATTRIBUTE %I', now->>'identity', a->>1);
            ELSE
                IF a->>1 <> b->>1 THEN
                    out := out || format('ALTER TYPE %s RENAME ATTRIBUTE %I TO %I', now->>'identity', a->>1, b->>1);
                END IF;
                IF a->>2 <> b->>2 THEN
                    out := out || format('ALTER TYPE %s ALTER ATTRIBUTE %I TYPE %s', now->>'identity', b->>1, b->>2);
                END IF;
            END IF;
        END LOOP;
        FOR b IN SELECT y FROM jsonb_array_elements(now->'attributes') y
                  WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(prev->'attributes') x WHERE x->>0 = y->>0) LOOP
            out := out || format('ALTER TYPE %s ADD ATTRIBUTE %I %s', now->>'identity', b->>1, b->>2);
        END LOOP;
    END IF;
    RETURN CASE WHEN cardinality(out) = 0 THEN NULL ELSE array_to_string(out, '; ') END;
END
$fn$;

-- How a dropped object is dropped on a target.
CREATE OR REPLACE FUNCTION sluice_capture.object_drop(def jsonb) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $fn$
SELECT CASE def->>'kind'
       WHEN 'trigger' THEN format('DROP TRIGGER IF EXISTS %I ON %I.%I', def->>'trigger', def->>'schema', def->>'name')
       WHEN 'view' THEN 'DROP VIEW IF EXISTS ' || (def->>'identity')
       WHEN 'function' THEN 'DROP FUNCTION IF EXISTS ' || (def->>'identity')
       WHEN 'procedure' THEN 'DROP PROCEDURE IF EXISTS ' || (def->>'identity')
       WHEN 'domain' THEN 'DROP DOMAIN IF EXISTS ' || (def->>'identity')
       WHEN 'extension' THEN 'DROP EXTENSION IF EXISTS ' || (def->>'identity')
       ELSE 'DROP TYPE IF EXISTS ' || (def->>'identity')
       END
$fn$;

-- Adds a table to every Sluice publication whose patterns select it and which does not have it yet,
-- with the row filter and column list the pipeline's keys give it (rules: [{"re", "where"} or
-- {"re", "columns"}], matched like the patterns; a list keeps the key's columns too). A table
-- the publication cannot take so is left out rather than published unfiltered: a filter naming a
-- column it lacks, or one outside its replica identity (PostgreSQL would then refuse the table's
-- UPDATEs and DELETEs: the user's writes must not fail for Sluice). It is tried again at the
-- table's next DDL (say, REPLICA IDENTITY FULL). Returns {"added": [publications], "refused":
-- {publication: why}}; the refusals go into the message, and the pipeline says so.
DROP FUNCTION IF EXISTS sluice_capture.publish_if_selected(jsonb);
CREATE FUNCTION sluice_capture.publish_if_selected(def jsonb) RETURNS jsonb
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    names text[];
    cap record;
    cond text;
    cols jsonb;
    listed text;
    entry text;
    outside text;
    added jsonb := '[]';
    refused jsonb := '{}';
BEGIN
    SELECT array_agg(x->>0 || chr(1) || (x->>1)) INTO names
      FROM jsonb_array_elements(jsonb_build_array(jsonb_build_array(def->>'schema', def->>'name')) || (def->'ancestors')) AS x;
    FOR cap IN
        SELECT p.pubname, s.rules FROM sluice_capture.publications s JOIN pg_publication p ON p.pubname = s.publication
         WHERE NOT p.puballtables
           AND EXISTS (SELECT 1 FROM unnest(s.includes) re, unnest(names) nm WHERE nm ~ re)
           AND NOT EXISTS (SELECT 1 FROM unnest(s.excludes) re, unnest(names) nm WHERE nm ~ re)
           AND NOT EXISTS (SELECT 1 FROM pg_publication_rel pr WHERE pr.prpubid = p.oid AND pr.prrelid = (def->>'oid')::oid)
           -- Through its root, a partition is published with it, attached or created: listed itself, it would stay
           -- published when detached.
           AND NOT (p.pubviaroot AND jsonb_array_length(def->'ancestors') > 0)
           -- UNLOGGED tables cannot be published (adding one would fail the user's DDL); their changes are not in the WAL.
           AND (SELECT c.relpersistence FROM pg_class c WHERE c.oid = (def->>'oid')::oid) = 'p'
    LOOP
        SELECT r->>'where' INTO cond FROM jsonb_array_elements(cap.rules) r
         WHERE r ? 'where' AND EXISTS (SELECT 1 FROM unnest(names) nm WHERE nm ~ (r->>'re')) LIMIT 1;
        SELECT r->'columns' INTO cols FROM jsonb_array_elements(cap.rules) r
         WHERE r ? 'columns' AND EXISTS (SELECT 1 FROM unnest(names) nm WHERE nm ~ (r->>'re')) LIMIT 1;
        entry := format('%I.%I', def->>'schema', def->>'name');
        IF cols IS NOT NULL THEN
            SELECT string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum) INTO listed
              FROM pg_attribute a
             WHERE a.attrelid = (def->>'oid')::oid AND a.attnum > 0 AND NOT a.attisdropped
               AND (cols ? a.attname
                    OR a.attnum = ANY (coalesce((SELECT i.indkey::int2[] FROM pg_index i
                                                  WHERE i.indrelid = a.attrelid AND (i.indisprimary OR i.indisreplident)
                                                  ORDER BY i.indisprimary DESC LIMIT 1), '{}')));
            entry := entry || ' (' || coalesce(listed, '') || ')';
        END IF;
        IF cond IS NOT NULL THEN
            entry := entry || ' WHERE (' || cond || ')';
        END IF;
        BEGIN
            EXECUTE format('ALTER PUBLICATION %I ADD TABLE ', cap.pubname) || entry;
            IF cond IS NOT NULL THEN
                -- The filter's columns, from its stored node tree, against the replica identity's.
                SELECT string_agg(DISTINCT a.attname, ', ') INTO outside
                  FROM pg_publication_rel pr JOIN pg_publication p ON p.oid = pr.prpubid AND p.pubname = cap.pubname
                  CROSS JOIN LATERAL regexp_matches(pr.prqual::text, ':varattno (\d+)', 'g') AS m(n)
                  JOIN pg_attribute a ON a.attrelid = pr.prrelid AND a.attnum = m.n[1]::int2
                  JOIN pg_class c ON c.oid = pr.prrelid
                 WHERE pr.prrelid = (def->>'oid')::oid AND c.relreplident <> 'f'
                   AND NOT a.attnum = ANY (coalesce((SELECT i.indkey::int2[] FROM pg_index i
                                                      WHERE i.indrelid = c.oid AND ((c.relreplident = 'd' AND i.indisprimary)
                                                                                    OR (c.relreplident = 'i' AND i.indisreplident))), '{}'));
                IF outside IS NOT NULL THEN
                    RAISE EXCEPTION 'its row filter (%) uses %, outside its replica identity: published so, PostgreSQL would refuse '
                        'its UPDATEs and DELETEs. ALTER TABLE %.% REPLICA IDENTITY FULL, and it joins the publication then',
                        cond, outside, quote_ident(def->>'schema'), quote_ident(def->>'name');
                END IF;
            END IF;
            added := added || to_jsonb(cap.pubname);
        EXCEPTION WHEN OTHERS THEN
            refused := refused || jsonb_build_object(cap.pubname, SQLERRM);
        END;
    END LOOP;
    RETURN jsonb_build_object('added', added, 'refused', refused);
END
$fn$;

-- The message, in the DDL's transaction, so it is decoded in its place among the rows.
CREATE OR REPLACE FUNCTION sluice_capture.emit(tag text, tables jsonb, objects jsonb) RETURNS void
LANGUAGE sql SET search_path = pg_catalog, pg_temp AS $fn$
SELECT pg_logical_emit_message(true, 'sluice.ddl', jsonb_build_object('tag', tag, 'statement', current_query(), 'tables', tables,
                                                                      'objects', objects)::text)
 WHERE jsonb_array_length(tables) > 0 OR jsonb_array_length(objects) > 0
$fn$;
-- The one-argument form of earlier versions.
DROP FUNCTION IF EXISTS sluice_capture.emit(text, jsonb);

-- Whether a publication sends the changes of this partitioned table's partitions as its own
-- (publish_via_partition_root).
CREATE OR REPLACE FUNCTION sluice_capture.via_root(top oid) RETURNS boolean
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $fn$
SELECT top IS NOT NULL AND EXISTS (
    SELECT 1 FROM pg_publication p
     WHERE p.pubviaroot AND (p.puballtables OR EXISTS (SELECT 1 FROM pg_publication_rel r WHERE r.prpubid = p.oid AND r.prrelid = top)))
$fn$;

-- The table at the top of a partitioned table's tree: itself when it is no partition; null for null.
CREATE OR REPLACE FUNCTION sluice_capture.top_of(r oid) RETURNS oid
LANGUAGE sql STABLE SET search_path = pg_catalog, pg_temp AS $fn$
SELECT a.relid FROM pg_partition_ancestors(r) WITH ORDINALITY AS a(relid, depth) ORDER BY a.depth DESC LIMIT 1
$fn$;

-- Before 15 a walsender keeps publishing a partition as it did before it was attached or
-- detached (pgoutput forgets what it knows of a table's publication only when a publication
-- itself changes): the publications that publish this tree through its root are touched, in the
-- command's transaction, so the stream after it publishes the partition as it is now.
CREATE OR REPLACE FUNCTION sluice_capture.refresh_before_15(top oid) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    pub name;
BEGIN
    IF current_setting('server_version_num')::int >= 150000 THEN
        RETURN;
    END IF;
    FOR pub IN SELECT p.pubname FROM pg_publication p
                WHERE p.pubviaroot AND (p.puballtables OR EXISTS (SELECT 1 FROM pg_publication_rel r WHERE r.prpubid = p.oid AND r.prrelid = top))
    LOOP
        EXECUTE format('ALTER PUBLICATION %I SET (publish_via_partition_root = true)', pub);
    END LOOP;
END
$fn$;

-- A partition that joined (attached) or left the tree under top: where the tree is published
-- through its root, the publication is brought up to date and the rows follow the partition.
CREATE OR REPLACE FUNCTION sluice_capture.move_partition(part oid, top oid, attached boolean, has_rows boolean) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
    IF sluice_capture.via_root(top) THEN
        PERFORM sluice_capture.refresh_before_15(top);
        IF has_rows THEN
            PERFORM sluice_capture.emit_partition_rows(part, top, attached);
        END IF;
    END IF;
END
$fn$;

-- The rows a partition brought into its root's tree (ATTACH PARTITION) or took out of it (DETACH
-- PARTITION). Published through the root, they come with no change of their own: pgoutput sends
-- nothing for them. They go as messages (prefix 'sluice.rows') in the command's own transaction,
-- while it holds the partition locked, so the stream makes them inserts or deletes of the root
-- exactly there: {"attached", "oid", "schema", "name", "columns": [[name, type oid, typmod]],
-- "rows": [[text values in the root's column order]]}, up to 1000 rows or about 1 MB a message.
CREATE OR REPLACE FUNCTION sluice_capture.emit_partition_rows(part oid, top oid, attached boolean) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    head text;
    columns text;
    v text;
    buf text[] := '{}';
    size bigint := 0;
BEGIN
    -- The root's columns as pgoutput publishes them: generated ones not before 18, virtual ones never.
    SELECT jsonb_build_object('attached', attached, 'oid', c.oid, 'schema', n.nspname, 'name', c.relname,
               'columns', coalesce(jsonb_agg(jsonb_build_array(a.attname, a.atttypid, a.atttypmod) ORDER BY a.attnum)
                                   FILTER (WHERE a.attnum IS NOT NULL), '[]'))::text,
           coalesce(string_agg(format('%I::text', a.attname), ', ' ORDER BY a.attnum), '')
      INTO head, columns
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
           AND (a.attgenerated = '' OR (a.attgenerated = 's' AND current_setting('server_version_num')::int >= 180000))
     WHERE c.oid = top
     GROUP BY c.oid, n.nspname, c.relname;
    head := left(head, -1) || ', "rows": [';
    FOR v IN EXECUTE format('SELECT json_build_array(%s)::text FROM %s %s', columns,
                            CASE WHEN (SELECT relkind FROM pg_class WHERE oid = part) = 'p' THEN '' ELSE 'ONLY' END, part::regclass)
    LOOP
        buf := buf || v;
        size := size + length(v);
        IF cardinality(buf) >= 1000 OR size >= 1000000 THEN
            PERFORM pg_logical_emit_message(true, 'sluice.rows', head || array_to_string(buf, ',') || ']}');
            buf := '{}';
            size := 0;
        END IF;
    END LOOP;
    IF cardinality(buf) > 0 THEN
        PERFORM pg_logical_emit_message(true, 'sluice.rows', head || array_to_string(buf, ',') || ']}');
    END IF;
END
$fn$;

CREATE OR REPLACE FUNCTION sluice_capture.on_ddl_command_end() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    r oid;
    def jsonb;
    previous jsonb;
    has_rows boolean;
    moved_in boolean;
    published jsonb;
    joined boolean;
    moves jsonb := '[]';
    move jsonb;
    tables jsonb := '[]';
    objects jsonb := '[]';
    o record;
    cls oid;
    obj oid;
    typ oid;
    odef jsonb;
    oprev jsonb;
    statements text;
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
        -- Attached to a parent or detached from one (a partition created as such comes empty).
        moved_in := previous IS NOT NULL AND CASE WHEN previous ? 'parentOid' THEN previous->'parentOid' IS DISTINCT FROM def->'parentOid'
                                                 ELSE (previous->'partitionOf' = 'null') IS DISTINCT FROM (def->'partitionOf' = 'null') END;
        -- New under this name or in this tree, or left out of a publication before (its filter did not fit): the
        -- publication may have to take it now, and rows it holds must be copied.
        published := sluice_capture.publish_if_selected(def);
        IF published->'refused' <> '{}' THEN
            def := def || jsonb_build_object('unpublished', published->'refused');
        END IF;
        joined := previous IS NOT NULL AND previous->>'schema' = def->>'schema' AND previous->>'name' = def->>'name' AND NOT moved_in
                  AND jsonb_array_length(published->'added') > 0;
        IF previous IS NULL OR previous->>'schema' <> def->>'schema' OR previous->>'name' <> def->>'name' OR moved_in OR joined THEN
            IF joined THEN
                def := def || jsonb_build_object('joined', true);
            END IF;
            EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s %I.%I)', CASE WHEN (def->>'partitioned')::boolean THEN '' ELSE 'ONLY' END,
                           def->>'schema', def->>'name') INTO STRICT has_rows;
            def := def || jsonb_build_object('hasRows', has_rows);
        END IF;
        IF moved_in THEN
            moves := moves || jsonb_build_array(jsonb_build_object('relid', r, 'hasRows', has_rows,
                'from', sluice_capture.top_of(CASE WHEN previous ? 'parentOid' THEN (previous->>'parentOid')::oid
                                                   WHEN jsonb_array_length(previous->'ancestors') > 0
                                                   THEN to_regclass(quote_ident(previous->'ancestors'->-1->>0) || '.'
                                                                    || quote_ident(previous->'ancestors'->-1->>1)) END),
                'to', sluice_capture.top_of((def->>'parentOid')::oid)));
        END IF;
        IF previous IS DISTINCT FROM (def - 'hasRows' - 'unpublished' - 'joined') OR def ? 'unpublished' OR def ? 'joined' THEN
            tables := tables || jsonb_build_array(def || jsonb_build_object('previous', previous));
            INSERT INTO sluice_capture.tables AS d VALUES (r, def - 'hasRows' - 'unpublished' - 'joined')
                ON CONFLICT (relid) DO UPDATE SET definition = EXCLUDED.definition;
        END IF;
    END LOOP;
    -- Other objects, in the order the command made them (a domain before the table using it comes in its own command).
    FOR o IN SELECT DISTINCT ON (c.classid, c.objid) c.classid, c.objid
               FROM pg_event_trigger_ddl_commands() c
              WHERE NOT c.in_extension AND c.classid IN ('pg_class'::regclass, 'pg_proc'::regclass, 'pg_trigger'::regclass,
                                                         'pg_type'::regclass, 'pg_extension'::regclass)
    LOOP
        cls := o.classid;
        obj := o.objid;
        -- A composite type is known by its type, whichever of its two catalog rows the command named.
        IF cls = 'pg_class'::regclass THEN
            SELECT c.reltype INTO typ FROM pg_class c WHERE c.oid = obj AND c.relkind = 'c';
            IF typ IS NOT NULL THEN
                cls := 'pg_type'::regclass;
                obj := typ;
            END IF;
        END IF;
        odef := sluice_capture.object_definition(cls, obj);
        CONTINUE WHEN odef IS NULL;
        SELECT d.definition INTO oprev FROM sluice_capture.objects d WHERE d.classid = cls AND d.objid = obj;
        CONTINUE WHEN oprev IS NOT DISTINCT FROM odef;
        statements := sluice_capture.object_statements(oprev, odef);
        IF statements IS NOT NULL THEN
            objects := objects || jsonb_build_array(jsonb_build_object('kind', odef->>'kind', 'schema', odef->>'schema',
                'name', odef->>'name', 'identity', odef->>'identity', 'statements', statements));
        END IF;
        INSERT INTO sluice_capture.objects AS d VALUES (cls, obj, odef)
            ON CONFLICT (classid, objid) DO UPDATE SET definition = EXCLUDED.definition;
    END LOOP;
    PERFORM sluice_capture.emit(tg_tag, tables, objects);
    FOR move IN SELECT * FROM jsonb_array_elements(moves) WHERE value->'from' IS DISTINCT FROM value->'to' LOOP
        PERFORM sluice_capture.move_partition((move->>'relid')::oid, (move->>'from')::oid, false, (move->>'hasRows')::boolean);
        PERFORM sluice_capture.move_partition((move->>'relid')::oid, (move->>'to')::oid, true, (move->>'hasRows')::boolean);
    END LOOP;
END
$fn$;

CREATE OR REPLACE FUNCTION sluice_capture.on_sql_drop() RETURNS event_trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    tables jsonb := '[]';
    objects jsonb := '[]';
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
    -- Other objects; a trigger goes with its table when that is dropped too.
    FOR gone IN
        DELETE FROM sluice_capture.objects d USING pg_event_trigger_dropped_objects() o
         WHERE o.classid = d.classid AND o.objid = d.objid
        RETURNING d.definition
    LOOP
        CONTINUE WHEN gone.definition->>'kind' = 'trigger' AND EXISTS (
            SELECT 1 FROM pg_event_trigger_dropped_objects() t
             WHERE t.object_type = 'table' AND t.schema_name = gone.definition->>'schema' AND t.object_name = gone.definition->>'name');
        objects := objects || jsonb_build_array(jsonb_build_object('kind', gone.definition->>'kind', 'schema', gone.definition->>'schema',
            'name', gone.definition->>'name', 'identity', gone.definition->>'identity', 'dropped', true,
            'statements', sluice_capture.object_drop(gone.definition)));
    END LOOP;
    PERFORM sluice_capture.emit(tg_tag, tables, objects);
END
$fn$;

-- Objects that exist now and are not known yet: their definitions are the "before" of their first change.
INSERT INTO sluice_capture.objects
SELECT x.classid, x.objid, x.definition FROM (
    SELECT 'pg_class'::regclass::oid AS classid, c.oid AS objid, sluice_capture.object_definition('pg_class'::regclass, c.oid) AS definition
      FROM pg_class c WHERE c.relkind = 'v'
    UNION ALL
    SELECT 'pg_proc'::regclass::oid, p.oid, sluice_capture.object_definition('pg_proc'::regclass, p.oid)
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE p.prokind IN ('f', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'sluice_capture')
    UNION ALL
    SELECT 'pg_trigger'::regclass::oid, t.oid, sluice_capture.object_definition('pg_trigger'::regclass, t.oid)
      FROM pg_trigger t WHERE NOT t.tgisinternal
    UNION ALL
    SELECT 'pg_type'::regclass::oid, t.oid, sluice_capture.object_definition('pg_type'::regclass, t.oid)
      FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
     WHERE t.typtype IN ('d', 'e') OR (t.typtype = 'c' AND (SELECT c.relkind FROM pg_class c WHERE c.oid = t.typrelid) = 'c')
    UNION ALL
    SELECT 'pg_extension'::regclass::oid, e.oid, sluice_capture.object_definition('pg_extension'::regclass, e.oid)
      FROM pg_extension e) x
 WHERE x.definition IS NOT NULL
ON CONFLICT (classid, objid) DO NOTHING;

-- Tables that exist now and are not known yet: their definitions are the "before" of their first change.
INSERT INTO sluice_capture.tables
SELECT relid, definition FROM (
    SELECT c.oid AS relid, sluice_capture.table_definition(c.oid) AS definition FROM pg_class c
     WHERE c.relkind IN ('r', 'p') AND NOT EXISTS (SELECT 1 FROM sluice_capture.tables t WHERE t.relid = c.oid)) d
 WHERE definition IS NOT NULL
ON CONFLICT (relid) DO NOTHING;

-- A pipeline registers its publication and patterns through these, as whatever user it runs
-- as: it may register only a publication it owns (or may act as the owner of), and forget one
-- it owns or that no longer exists. Everything else in the schema is the triggers' own.
CREATE OR REPLACE FUNCTION sluice_capture.register(pub name, includes text[], excludes text[]) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_publication p WHERE p.pubname = pub AND pg_has_role(session_user, p.pubowner, 'USAGE')) THEN
        RAISE EXCEPTION 'publication % does not exist or is not owned by %', pub, session_user
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    INSERT INTO sluice_capture.publications VALUES (pub, includes, excludes)
    ON CONFLICT (publication) DO UPDATE SET includes = EXCLUDED.includes, excludes = EXCLUDED.excludes;
END
$fn$;

-- The same with the row filters and column lists the publication's tables take as they are created.
CREATE OR REPLACE FUNCTION sluice_capture.register(pub name, includes text[], excludes text[], rules jsonb) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
    PERFORM sluice_capture.register(pub, includes, excludes);
    UPDATE sluice_capture.publications SET rules = coalesce($4, '[]') WHERE publication = pub;
END
$fn$;

-- Returns how many publications stay registered.
CREATE OR REPLACE FUNCTION sluice_capture.unregister(pub name) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_publication p WHERE p.pubname = pub AND NOT pg_has_role(session_user, p.pubowner, 'USAGE')) THEN
        RAISE EXCEPTION 'publication % is not owned by %', pub, session_user USING ERRCODE = 'insufficient_privilege';
    END IF;
    DELETE FROM sluice_capture.publications WHERE publication = pub;
    RETURN (SELECT count(*) FROM sluice_capture.publications);
END
$fn$;

-- A table that joined a pipeline's selection (its tables were widened): its definition, and its
-- partitions', go into the stream as if it had just been created, so that the targets make it
-- before its rows come (by a re-sync). Returns how many tables it announced.
CREATE OR REPLACE FUNCTION sluice_capture.announce(top oid) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
    r oid;
    def jsonb;
    tables jsonb := '[]';
BEGIN
    -- pg_partition_tree has no row for a table in no tree: the table itself is added.
    FOR r IN SELECT x.relid FROM (SELECT t.relid, t.level FROM pg_partition_tree(top) t UNION SELECT top, 0) x
              ORDER BY x.level, x.relid LOOP
        def := sluice_capture.table_definition(r);
        CONTINUE WHEN def IS NULL;
        tables := tables || jsonb_build_array(def || jsonb_build_object('hasRows', false, 'previous', NULL));
        INSERT INTO sluice_capture.tables AS d VALUES (r, def)
            ON CONFLICT (relid) DO UPDATE SET definition = EXCLUDED.definition;
    END LOOP;
    PERFORM sluice_capture.emit('ALTER PUBLICATION', tables, '[]');
    RETURN jsonb_array_length(tables);
END
$fn$;

GRANT USAGE ON SCHEMA sluice_capture TO PUBLIC;
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA sluice_capture FROM PUBLIC;
GRANT EXECUTE ON FUNCTION sluice_capture.register(name, text[], text[]), sluice_capture.register(name, text[], text[], jsonb), sluice_capture.unregister(name),
    sluice_capture.announce(oid) TO PUBLIC;

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
