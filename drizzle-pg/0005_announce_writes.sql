-- Replicas hear of each other's writes (LISTEN on the channel named after the schema, delivered
-- at commit): jobs written (each tenant's earliest due instant among them), a tenant's clock or id
-- changed, webhook events to attempt (new, requeued, or a retry scheduled), a tenant retired.
CREATE FUNCTION "announce_jobs"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  written record;
BEGIN
  FOR written IN SELECT tenant_id, min(due_at) AS due_at FROM new_jobs GROUP BY tenant_id LOOP
    PERFORM pg_notify(TG_TABLE_SCHEMA, 'j ' || written.tenant_id || ' ' || written.due_at);
  END LOOP;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "jobs_announce" AFTER INSERT ON "jobs" REFERENCING NEW TABLE AS new_jobs
  FOR EACH STATEMENT EXECUTE FUNCTION "announce_jobs"();--> statement-breakpoint
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
CREATE FUNCTION "announce_webhook_events"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(TG_TABLE_SCHEMA, 'w');
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "webhook_events_announce" AFTER INSERT ON "webhook_events"
  FOR EACH STATEMENT EXECUTE FUNCTION "announce_webhook_events"();--> statement-breakpoint
CREATE TRIGGER "webhook_events_announce_retry" AFTER UPDATE ON "webhook_events" FOR EACH ROW
  WHEN (NEW.status = 'pending' AND NEW.lease_until IS NULL
    AND OLD.next_attempt_at IS DISTINCT FROM NEW.next_attempt_at)
  EXECUTE FUNCTION "announce_webhook_events"();--> statement-breakpoint
CREATE FUNCTION "announce_retired_tenants"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify(TG_TABLE_SCHEMA, 'r');
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER "retired_tenants_announce" AFTER INSERT ON "retired_tenants"
  FOR EACH STATEMENT EXECUTE FUNCTION "announce_retired_tenants"();
