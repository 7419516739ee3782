CREATE TABLE `business_operations` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`reference` text NOT NULL,
	`tenant_id` text NOT NULL,
	`source_reference` text NOT NULL,
	`amount` integer NOT NULL,
	`fees` integer NOT NULL,
	`description` text NOT NULL,
	`type` text NOT NULL,
	`kind` text NOT NULL,
	`bank_name` text NOT NULL,
	`bank_id` text NOT NULL,
	`bank_account_name` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `business_operations_reference_unique` ON `business_operations` (`reference`);--> statement-breakpoint
CREATE INDEX `business_operations_tenant_seq` ON `business_operations` (`tenant_id`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `business_operations_source` ON `business_operations` (`source_reference`,`kind`);--> statement-breakpoint
CREATE TABLE `card_users` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`reference` text NOT NULL,
	`tenant_id` text NOT NULL,
	`flow` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`address` text,
	`phone` text NOT NULL,
	`email` text,
	`id_no` text,
	`selfie_image` text,
	`id_image` text,
	`back_id_image` text,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `card_users_reference_unique` ON `card_users` (`reference`);--> statement-breakpoint
CREATE INDEX `card_users_tenant_seq` ON `card_users` (`tenant_id`,`seq`);--> statement-breakpoint
CREATE TABLE `cards` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`reference` text NOT NULL,
	`tenant_id` text NOT NULL,
	`card_user_reference` text NOT NULL,
	`identifier` integer,
	`brand` text NOT NULL,
	`type` text NOT NULL,
	`card_number` text,
	`cvv2` text,
	`expiry` text,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cards_reference_unique` ON `cards` (`reference`);--> statement-breakpoint
CREATE INDEX `cards_tenant_seq` ON `cards` (`tenant_id`,`seq`);--> statement-breakpoint
CREATE INDEX `cards_tenant_user` ON `cards` (`tenant_id`,`card_user_reference`);--> statement-breakpoint
CREATE TABLE `disburses` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`reference` text NOT NULL,
	`slug` text NOT NULL,
	`tenant_id` text NOT NULL,
	`partner_reference` text NOT NULL,
	`network` text NOT NULL,
	`amount` integer NOT NULL,
	`customer_full_name` text NOT NULL,
	`customer_email` text NOT NULL,
	`customer_phone` text NOT NULL,
	`customer_bank_name` text NOT NULL,
	`customer_bank_id` text NOT NULL,
	`customer_bank_account_name` text NOT NULL,
	`status` text NOT NULL,
	`expired_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `disburses_reference_unique` ON `disburses` (`reference`);--> statement-breakpoint
CREATE UNIQUE INDEX `disburses_slug_unique` ON `disburses` (`slug`);--> statement-breakpoint
CREATE INDEX `disburses_tenant_seq` ON `disburses` (`tenant_id`,`seq`);--> statement-breakpoint
CREATE TABLE `disputes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`reference` text NOT NULL,
	`tenant_id` text NOT NULL,
	`transaction_slug` text NOT NULL,
	`reason` text NOT NULL,
	`explanation` text,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `disputes_reference_unique` ON `disputes` (`reference`);--> statement-breakpoint
CREATE INDEX `disputes_tenant_seq` ON `disputes` (`tenant_id`,`seq`);--> statement-breakpoint
CREATE TABLE `payments` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`reference` text NOT NULL,
	`slug` text NOT NULL,
	`tenant_id` text NOT NULL,
	`partner_reference` text NOT NULL,
	`network` text NOT NULL,
	`amount` integer NOT NULL,
	`customer_full_name` text NOT NULL,
	`customer_email` text NOT NULL,
	`customer_phone` text NOT NULL,
	`customer_bank_name` text NOT NULL,
	`customer_bank_id` text NOT NULL,
	`customer_bank_account_name` text NOT NULL,
	`status` text NOT NULL,
	`expired_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payments_reference_unique` ON `payments` (`reference`);--> statement-breakpoint
CREATE UNIQUE INDEX `payments_slug_unique` ON `payments` (`slug`);--> statement-breakpoint
CREATE INDEX `payments_tenant_seq` ON `payments` (`tenant_id`,`seq`);--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` text PRIMARY KEY NOT NULL,
	`token` text NOT NULL,
	`business_name` text NOT NULL,
	`clock_mode` text NOT NULL,
	`clock_anchor_ms` integer NOT NULL,
	`clock_wall_ms` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tenants_token_unique` ON `tenants` (`token`);--> statement-breakpoint
CREATE TABLE `transactions` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`slug` text NOT NULL,
	`tenant_id` text NOT NULL,
	`card_reference` text NOT NULL,
	`reference` text NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`amount` integer NOT NULL,
	`merchant` text,
	`bank_id` text,
	`bank_name` text,
	`bank_account_name` text,
	`description` text,
	`phone` text,
	`network` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `transactions_slug_unique` ON `transactions` (`slug`);--> statement-breakpoint
CREATE INDEX `transactions_tenant_seq` ON `transactions` (`tenant_id`,`seq`);--> statement-breakpoint
CREATE INDEX `transactions_tenant_card_seq` ON `transactions` (`tenant_id`,`card_reference`,`seq`);