-- Replicas hear of each other's writes (LISTEN on the channel named after the schema, delivered
-- at commit): a job due before every pending job of its tenant, a tenant's clock or id changed,
-- a tenant retired. Only what the other replicas' tick must learn: a NOTIFY serialises the commits
-- that send one (8 clients inserting jobs: 1,140 µs a commit with one per job, 487 without), and
-- a job due after another of its tenant's changes no replica's earliest instant. Webhook events
-- are attempted by the replica that wrote them; one that died leaves them to the slow poll.
CREATE FUNCTION "announce_jobs"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM jobs WHERE tenant_id = NEW.tenant_id AND due_at <= NEW.due_at) THEN
    PERFORM pg_notify(TG_TABLE_SCHEMA, 'j ' || NEW.tenant_id || ' ' || NEW.due_at);
  END IF;
  RETURN NEW;
END $$;--> statement-breakpoint
CREATE TRIGGER "jobs_announce" BEFORE INSERT ON "jobs" FOR EACH ROW
  EXECUTE FUNCTION "announce_jobs"();--> statement-breakpoint
CREATE FUNCTION "announce_tenant_clock"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(TG_TABLE_SCHEMA, 't ' || OLD.id);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "tenants_announce_clock" AFTER UPDATE ON "tenants" FOR EACH ROW
  WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD.clock_mode IS DISTINCT FROM NEW.clock_mode
    OR OLD.clock_anchor_ms IS DISTINCT FROM NEW.clock_anchor_ms
    OR OLD.clock_wall_ms IS DISTINCT FROM NEW.clock_wall_ms)
  EXECUTE FUNCTION "announce_tenant_clock"();--> statement-breakpoint
CREATE FUNCTION "announce_retired_tenants"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(TG_TABLE_SCHEMA, 'r');
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "retired_tenants_announce" AFTER INSERT ON "retired_tenants"
  FOR EACH STATEMENT EXECUTE FUNCTION "announce_retired_tenants"();
