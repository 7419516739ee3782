/**
 * The postgres project's global set-up (vitest.config.ts): the schemas its sandboxes made
 * (test/pg.ts pgSchemaUrl, one a sandbox) are dropped before the run and after it, so that the
 * test database does not fill up with them.
 */
import pg from 'pg'
import { SANDBOX_SCHEMA_PREFIX, TEST_PG } from './pg.js'

async function dropSandboxSchemas(): Promise<void> {
  if (!TEST_PG) return
  const client = new pg.Client({ connectionString: TEST_PG })
  await client.connect()
  try {
    const { rows } = await client.query<{ name: string }>(
      'SELECT nspname AS name FROM pg_namespace WHERE starts_with(nspname, $1)',
      [SANDBOX_SCHEMA_PREFIX],
    )
    for (const { name } of rows) await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`)
  } finally {
    await client.end()
  }
}

export async function setup(): Promise<() => Promise<void>> {
  await dropSandboxSchemas()
  return dropSandboxSchemas
}
