CREATE TABLE `retired_tenants` (
	`id` text PRIMARY KEY NOT NULL,
	`retired_at` integer NOT NULL
);
