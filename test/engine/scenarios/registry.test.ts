/**
 * The scenarios in force (src/engine/scenarios/registry.ts): the files', watched and said on the
 * console as they change, then a tenant's own; what is in force worked out once per tenant and
 * kept until a scenario changes, on a shared store only under the tenant's scenarios stamp.
 */
import { renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createScenarioRegistry } from '../../../src/engine/scenarios/registry.js'
import { parseScenario } from '../../../src/engine/scenarios/load.js'
import type { Db } from '../../../src/store/driver.js'
import { deleteScenario } from '../../../src/store/scenarios.js'
import { memoryStore, pgStoreOnFreshSchema, TEST_PG } from '../../pg.js'
import { tempDir } from '../../temp-dir.js'
import { until } from '../../webhooks/receiver.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

const scenarioText = (name: string, extra = '') =>
  `name: ${name}\n${extra}rules:\n  - match: { method: GET, path: /v1/cards }\n    respond: { status: 418 }\n`

/** A registry on `db` of `files`, and the lines it said. */
function registryOf(db: Db, files: string[], watch = true) {
  const said: string[] = []
  const registry = createScenarioRegistry(db, {
    files,
    random: () => 0,
    watch,
    log: (line, level) => said.push(`${level} ${line}`),
  })
  cleanups.push(() => registry.close())
  return { registry, said }
}

/** A scenario file in a directory of its own. */
function scenarioFile(text = scenarioText('first')) {
  const file = join(tempDir(), 'live.yaml')
  writeFileSync(file, text)
  return file
}

const names = async (registry: ReturnType<typeof registryOf>['registry'], tenantId = 'ten_1') =>
  (await registry.active(tenantId)).map(({ source, scenario }) => `${source}:${scenario.name}`)

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('a scenario file in use', () => {
  it('says each change on the console, and what is in force follows it', async () => {
    const file = scenarioFile()
    const { registry, said } = registryOf(memoryStore(cleanups), [file])
    expect(await names(registry)).toEqual([`${file}:first`])
    const next = async () => {
      const count = said.length
      await until(() => said.length > count, 5_000, 'a line')
      return said.at(-1)
    }

    writeFileSync(file, scenarioText('second'))
    expect(await next()).toBe(`info reloaded scenario ${file} (second)`)
    expect(await names(registry)).toEqual([`${file}:second`])

    writeFileSync(file, 'name: broken\nrules: 3\n')
    expect(await next()).toMatch(
      new RegExp(`^warn ${file}:2: rules: .* — keeping the last good version of ${file}$`),
    )
    expect(await names(registry)).toEqual([`${file}:second`])

    unlinkSync(file)
    expect(await next()).toBe(
      `info scenario file ${file} was deleted: second is out of force until the file comes back`,
    )
    expect(await names(registry)).toEqual([])

    writeFileSync(`${file}.tmp`, 'name: broken\nrules: 3\n')
    renameSync(`${file}.tmp`, file)
    expect(await next()).toMatch(
      new RegExp(`^warn ${file}:2: rules: .* — ${file} stays out of force until it is fixed$`),
    )

    // deleted again before it was ever good: nothing was in force, nothing to say
    unlinkSync(file)
    await pause(400)
    expect(said).toHaveLength(4)

    writeFileSync(file, scenarioText('third'))
    expect(await next()).toBe(`info loaded scenario ${file} (third)`)
    expect(await names(registry)).toEqual([`${file}:third`])
  })

  it('is not watched when the sandbox does not watch, nor once the registry is closed', async () => {
    const unwatched = scenarioFile()
    const { registry, said } = registryOf(memoryStore(cleanups), [unwatched], false)
    const closed = scenarioFile()
    const { registry: closing, said: saidClosing } = registryOf(memoryStore(cleanups), [closed])
    closing.close()
    writeFileSync(unwatched, scenarioText('second'))
    writeFileSync(closed, scenarioText('second'))
    await pause(400)
    expect(said).toEqual([])
    expect(saidClosing).toEqual([])
    expect(await names(registry)).toEqual([`${unwatched}:first`])
  })
})

describe('a tenant’s scenarios', () => {
  const posted = (name: string, extra = '') => {
    const text = `name: ${name}\n${extra}rules:\n  - match: { method: GET }\n    respond: { status: 503 }\n`
    return parseScenario(text)
  }

  it('come after the files’, their delays winning; a body matcher in any rule of any scenario is seen', async () => {
    const file = scenarioFile(scenarioText('from-file', 'delays: { card_issuing: 1s }\n'))
    const { registry } = registryOf(memoryStore(cleanups), [file])
    expect((await registry.inForce('ten_1')).needsBody).toBe(false)
    const second = posted('own', 'delays: { card_issuing: 2s }\n')
    second.rules.push({ ...second.rules[0], match: { method: 'POST', body: { amount: 5 } } })
    await registry.add('ten_1', second, second)
    expect(await names(registry)).toEqual([`${file}:from-file`, 'tenant:own'])
    expect(await registry.delays('ten_1')).toEqual({ card_issuing: 2_000 })
    expect((await registry.inForce('ten_1')).needsBody).toBe(true)
    expect(await names(registry, 'ten_2')).toEqual([`${file}:from-file`])
  })

  it('are taken out one by one; a file’s scenario only by its file', async () => {
    const file = scenarioFile()
    const { registry } = registryOf(memoryStore(cleanups), [file])
    await registry.add('ten_1', posted('own'), posted('own'))
    expect(await registry.remove('ten_1', 'own')).toBe('removed')
    expect(await names(registry)).toEqual([`${file}:first`])
    expect(await registry.remove('ten_1', 'first')).toBe('file')
    expect(await registry.remove('ten_1', 'nothing')).toBe('unknown')
  })

  it('are kept in memory on a store of one process, until the tenant is forgotten (its reset)', async () => {
    const db = memoryStore(cleanups)
    const { registry } = registryOf(db, [])
    await registry.add('ten_1', posted('own'), posted('own'))
    expect(await names(registry)).toEqual(['tenant:own'])
    expect(registry.inForceKnown('ten_1')?.scenarios).toHaveLength(1)
    // a reset deletes the tenant's rows; until it is forgotten, what was worked out stays
    await deleteScenario(db, 'ten_1', 'own')
    expect(await names(registry)).toEqual(['tenant:own'])
    registry.forget('ten_1')
    expect(registry.inForceKnown('ten_1')).toBeUndefined()
    expect(await names(registry)).toEqual([])
  })
})

describe.skipIf(!TEST_PG)('a tenant’s scenarios on a shared store (PostgreSQL)', () => {
  it('are kept only under the scenarios stamp they were read with', async () => {
    const { db } = await pgStoreOnFreshSchema(cleanups as (() => Promise<void>)[])
    const { registry } = registryOf(db, [])
    const own = parseScenario(scenarioText('own'))
    await registry.add('ten_1', own, own)
    await registry.inForce('ten_1', 'stamp-1')
    expect(registry.inForceKnown('ten_1', 'stamp-1')?.scenarios).toHaveLength(1)
    expect(registry.inForceKnown('ten_1', 'stamp-2')).toBeUndefined()
    expect(registry.inForceKnown('ten_1')).toBeUndefined()
    // another replica removed it: the stamp changed, and it is read again
    await deleteScenario(db, 'ten_1', 'own')
    expect((await registry.inForce('ten_1', 'stamp-1')).scenarios).toHaveLength(1)
    expect((await registry.inForce('ten_1', 'stamp-2')).scenarios).toEqual([])
    // without a stamp nothing is kept
    await registry.inForce('ten_2')
    expect(registry.inForceKnown('ten_2')).toBeUndefined()
  })
})
