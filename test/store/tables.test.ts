/**
 * The tenant tables come from the schema (store/tables.ts): every table the migrations make with
 * a tenant_id column is one a reset retires and a snapshot keeps.
 */
import { describe, expect, it } from 'vitest'
import { openSqlite } from '../../src/store/sqlite/driver.js'
import { TENANT_TABLES } from '../../src/store/tables.js'

describe('the tenant tables', () => {
  it('are every table of the migrated database that has a tenant_id column', () => {
    const db = openSqlite()
    const withTenantId = db.$client
      .prepare(
        `SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c
         WHERE m.type = 'table' AND c.name = 'tenant_id' ORDER BY m.name`,
      )
      .pluck()
      .all()
    expect([...TENANT_TABLES].sort()).toEqual(withTenantId)
    expect(TENANT_TABLES.length).toBeGreaterThan(10)
  })
})
