ALTER TABLE "cards" DROP CONSTRAINT "cards_reference_unique";--> statement-breakpoint
CREATE UNIQUE INDEX "cards_reference_tenant" ON "cards" USING btree ("reference","tenant_id");