import { defineConfig } from 'drizzle-kit'

// the team sandbox's PostgreSQL migrations, from the same tables (src/db/pg-tables.ts)
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/pg-tables.ts',
  out: './drizzle-pg',
})
