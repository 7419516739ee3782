DROP INDEX `cards_reference_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `cards_reference_tenant` ON `cards` (`reference`,`tenant_id`);