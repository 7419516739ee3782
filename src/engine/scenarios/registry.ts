/**
 * The scenarios in force (PRODUCT §9): files given at start (every tenant), and the ones a
 * tenant posts at run time (that tenant only, kept in SQLite, gone on its reset). Files are
 * watched; a broken edit keeps the last good version, a deleted file takes its scenario out of
 * force until it comes back, and each change is said on stderr.
 */
import type { Db } from '../../store/driver.js'
import type { DelayName } from '../../domain/schedule.js'
import { deleteScenario, postedScenarios, saveScenario } from '../../store/scenarios.js'
import { storeIsShared } from '../../store/statements.js'
import { loadScenarioFile, validateScenario, watchScenarioFile } from './load.js'
import {
  createRuleMatcher,
  type ActiveScenario,
  type Effects,
  type ScenarioRequest,
} from './rules.js'
import type { Scenario } from './schema.js'

export type ScenarioRegistry = ReturnType<typeof createScenarioRegistry>

export function createScenarioRegistry(
  db: Db,
  options: {
    files: string[]
    random: () => number
    watch: boolean
    log: (line: string, level: 'info' | 'warn') => void
  },
) {
  const fromFiles = new Map<string, Scenario>()
  const matcher = createRuleMatcher(options.random)
  const stops: (() => void)[] = []

  // a broken file at start stops the start, with the file, line and field in the message
  const fileNames = [...new Set(options.files)]
  for (const file of fileNames) fromFiles.set(file, loadScenarioFile(file))
  const changed = (line: string) => {
    inForceByTenant.clear()
    options.log(line, 'info')
  }
  if (options.watch) {
    for (const file of fileNames) {
      const stop = watchScenarioFile(file, {
        load(scenario) {
          const again = !fromFiles.has(file)
          fromFiles.set(file, scenario)
          changed(`${again ? 'loaded' : 'reloaded'} scenario ${file} (${scenario.name})`)
        },
        error: (error) =>
          options.log(
            `${error.message} — ` +
              (fromFiles.has(file)
                ? `keeping the last good version of ${file}`
                : `${file} stays out of force until it is fixed`),
            'warn',
          ),
        remove() {
          const scenario = fromFiles.get(file)
          if (!scenario) return
          fromFiles.delete(file)
          changed(
            `scenario file ${file} was deleted: ${scenario.name} is out of force ` +
              'until the file comes back',
          )
        },
      })
      stops.push(stop)
    }
  }

  /** What is in force for a tenant, worked out once and kept until a scenario changes. */
  type InForce = {
    scenarios: ActiveScenario[]
    /** Whether any rule looks at request bodies. */
    needsBody: boolean
    /** Delay overrides of the scenarios; later scenarios win. */
    delays: Partial<Record<DelayName, number>>
    /** The tenant's scenarios stamp it was loaded under (a shared store). */
    stamp?: string
  }
  /**
   * On a shared store, kept only under the tenant's scenarios stamp: a scenario posted on another
   * replica is in force here at the next request.
   */
  const inForceByTenant = new Map<string, InForce>()
  const keeps = !storeIsShared(db)

  /** The files' scenarios in the order the files were given (a returning file keeps its place). */
  function files(): ActiveScenario[] {
    return fileNames.flatMap((source) => {
      const scenario = fromFiles.get(source)
      return scenario ? [{ source, scenario }] : []
    })
  }

  /**
   * On a shared store, what is kept is used only while the tenant's scenarios stamp (read with
   * the tenant: store/tenants.ts stampsOf) is the one it was loaded under.
   */
  function current(tenantId: string, stamp: string | undefined): InForce | undefined {
    const cached = inForceByTenant.get(tenantId)
    if (keeps || (cached && stamp !== undefined && cached.stamp === stamp)) return cached
    return undefined
  }

  async function inForce(tenantId: string, stamp?: string): Promise<InForce> {
    let cached = current(tenantId, stamp)
    if (!cached) {
      const own = (await postedScenarios(db, tenantId)).map((definition) => ({
        source: 'tenant',
        scenario: validateScenario(definition),
      }))
      const scenarios = [...files(), ...own]
      const delays: Partial<Record<DelayName, number>> = {}
      for (const { scenario } of scenarios) {
        for (const [name, ms] of Object.entries(scenario.delays ?? {})) {
          if (ms !== undefined) delays[name as DelayName] = ms
        }
      }
      const needsBody = scenarios.some(({ scenario }) =>
        scenario.rules.some((rule) => rule.match.body),
      )
      cached = { scenarios, needsBody, delays, stamp }
      if (keeps || stamp !== undefined) inForceByTenant.set(tenantId, cached)
    }
    return cached
  }

  return {
    inForce,
    /** The scenarios in force for a tenant if this process knows them, without waiting. */
    inForceKnown: (tenantId: string, stamp?: string): InForce | undefined =>
      current(tenantId, stamp),
    files,

    /** The scenarios in force for a tenant: files (everyone's) first, then its own. */
    active: async (tenantId: string): Promise<ActiveScenario[]> =>
      (await inForce(tenantId)).scenarios,

    async evaluate(request: ScenarioRequest): Promise<Effects> {
      return matcher.evaluate((await inForce(request.tenantId)).scenarios, request)
    },

    delays: async (tenantId: string) => (await inForce(tenantId)).delays,

    /** Adds a tenant's scenario, replacing one of the same name. */
    async add(tenantId: string, scenario: Scenario, definition: unknown): Promise<void> {
      await saveScenario(db, tenantId, scenario.name, definition)
      inForceByTenant.delete(tenantId)
    },

    /**
     * Takes one of the tenant's own scenarios out of force: `removed`; `file` when the name is a
     * file's scenario (only its file can change that); `unknown` when nothing has that name.
     */
    async remove(tenantId: string, name: string): Promise<'removed' | 'file' | 'unknown'> {
      if (await deleteScenario(db, tenantId, name)) {
        inForceByTenant.delete(tenantId)
        return 'removed'
      }
      return files().some(({ scenario }) => scenario.name === name) ? 'file' : 'unknown'
    },

    /** After a tenant's reset: its scenarios (already deleted with its rows) and counts go. */
    forget(tenantId: string): void {
      inForceByTenant.delete(tenantId)
      matcher.resetCounts(tenantId)
    },

    close(): void {
      for (const stop of stops) stop()
    },
  }
}
