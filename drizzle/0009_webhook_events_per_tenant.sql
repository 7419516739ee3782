DROP INDEX `webhook_events_due`;--> statement-breakpoint
CREATE INDEX `webhook_events_pending` ON `webhook_events` (`status`,`tenant_id`,`next_attempt_at`);