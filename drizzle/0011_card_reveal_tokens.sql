CREATE TABLE `card_reveal_tokens` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token` text NOT NULL,
	`tenant_id` text NOT NULL,
	`card_reference` text NOT NULL,
	`css_url` text,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `card_reveal_tokens_token_unique` ON `card_reveal_tokens` (`token`);--> statement-breakpoint
CREATE INDEX `card_reveal_tokens_tenant_seq` ON `card_reveal_tokens` (`tenant_id`,`seq`);