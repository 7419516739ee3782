CREATE TABLE `wallet_codes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`tenant_id` text NOT NULL,
	`code` text NOT NULL,
	`phone` text NOT NULL,
	`network` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `wallet_codes_lookup` ON `wallet_codes` (`tenant_id`,`network`,`phone`,`code`);