CREATE TABLE `snapshots` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token` text NOT NULL,
	`name` text NOT NULL,
	`taken_at` integer NOT NULL,
	`row_count` integer NOT NULL,
	`tenant` text NOT NULL,
	`rows` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `snapshots_token_name` ON `snapshots` (`token`,`name`);