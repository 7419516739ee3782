DROP INDEX `jobs_tenant_resource_key`;--> statement-breakpoint
ALTER TABLE `jobs` ADD `resource_seq` integer;--> statement-breakpoint
CREATE INDEX `jobs_tenant_resource_seq` ON `jobs` (`tenant_id`,`resource`,`resource_seq`);--> statement-breakpoint
UPDATE "jobs" SET "resource_seq" = (SELECT "seq" FROM "cards" WHERE "cards"."reference" = "jobs"."key" AND "cards"."tenant_id" = "jobs"."tenant_id") WHERE "resource" = 'cards';--> statement-breakpoint
UPDATE "jobs" SET "resource_seq" = (SELECT "seq" FROM "card_users" WHERE "card_users"."reference" = "jobs"."key" AND "card_users"."tenant_id" = "jobs"."tenant_id") WHERE "resource" = 'card-users';--> statement-breakpoint
UPDATE "jobs" SET "resource_seq" = (SELECT "seq" FROM "transactions" WHERE "transactions"."slug" = "jobs"."key" AND "transactions"."tenant_id" = "jobs"."tenant_id") WHERE "resource" = 'transactions';--> statement-breakpoint
UPDATE "jobs" SET "resource_seq" = (SELECT "seq" FROM "payments" WHERE "payments"."reference" = "jobs"."key" AND "payments"."tenant_id" = "jobs"."tenant_id") WHERE "resource" = 'payments';--> statement-breakpoint
UPDATE "jobs" SET "resource_seq" = (SELECT "seq" FROM "disburses" WHERE "disburses"."reference" = "jobs"."key" AND "disburses"."tenant_id" = "jobs"."tenant_id") WHERE "resource" = 'disburses';--> statement-breakpoint
UPDATE "jobs" SET "resource_seq" = CAST("key" AS INTEGER) WHERE "resource" = 'wallet-codes';
