DROP INDEX `cards_tenant_user`;--> statement-breakpoint
CREATE INDEX `cards_tenant_identifier` ON `cards` (`tenant_id`,`identifier`) WHERE identifier IS NOT NULL;