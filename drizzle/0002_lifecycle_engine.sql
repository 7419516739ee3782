CREATE TABLE `accounts` (
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`balance` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `name`)
);
--> statement-breakpoint
CREATE TABLE `jobs` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` text NOT NULL,
	`resource` text NOT NULL,
	`key` text NOT NULL,
	`action` text NOT NULL,
	`due_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jobs_tenant_due` ON `jobs` (`tenant_id`,`due_at`,`seq`);--> statement-breakpoint
CREATE INDEX `jobs_due` ON `jobs` (`due_at`);--> statement-breakpoint
CREATE TABLE `postings` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` text NOT NULL,
	`account` text NOT NULL,
	`amount` integer NOT NULL,
	`source` text NOT NULL,
	`memo` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `postings_tenant_account` ON `postings` (`tenant_id`,`account`);--> statement-breakpoint
ALTER TABLE `tenants` ADD `delays` text;