/**
 * The scenarios in force (PRODUCT §9): files given at start (every tenant), and the ones a
 * tenant posts at run time (that tenant only, kept in SQLite, gone on its reset). Files are
 * watched; a broken edit keeps the last good version and says so on stderr.
 */
import { and, asc, eq } from 'drizzle-orm'
import type { Db } from '../../db/open.js'
import { scenarios as scenariosTable } from '../../db/schema.js'
import type { DelayName } from '../../domain/schedule.js'
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
  options: { files: string[]; random: () => number; watch: boolean; log: (line: string) => void },
) {
  const fromFiles = new Map<string, Scenario>()
  const byTenant = new Map<string, ActiveScenario[]>()
  const matcher = createRuleMatcher(options.random)
  const stops: (() => void)[] = []

  // a broken file at start stops the start, with the file, line and field in the message
  for (const file of options.files) fromFiles.set(file, loadScenarioFile(file))
  if (options.watch) {
    for (const file of options.files) {
      const stop = watchScenarioFile(
        file,
        (scenario) => {
          fromFiles.set(file, scenario)
          options.log(`card-sandbox: reloaded scenario ${file} (${scenario.name})`)
        },
        (error) =>
          options.log(`card-sandbox: ${error.message} — keeping the last good version of ${file}`),
      )
      stops.push(stop)
    }
  }

  function tenantScenarios(tenantId: string): ActiveScenario[] {
    let cached = byTenant.get(tenantId)
    if (!cached) {
      cached = db
        .select()
        .from(scenariosTable)
        .where(eq(scenariosTable.tenantId, tenantId))
        .orderBy(asc(scenariosTable.seq))
        .all()
        .map((row) => ({ source: 'tenant', scenario: validateScenario(row.definition) }))
      byTenant.set(tenantId, cached)
    }
    return cached
  }

  function active(tenantId: string): ActiveScenario[] {
    return [
      ...[...fromFiles].map(([source, scenario]) => ({ source, scenario })),
      ...tenantScenarios(tenantId),
    ]
  }

  return {
    active,

    /** The scenarios loaded from files, for every tenant. */
    files: (): ActiveScenario[] =>
      [...fromFiles].map(([source, scenario]) => ({ source, scenario })),

    evaluate(request: ScenarioRequest): Effects {
      return matcher.evaluate(active(request.tenantId), request)
    },

    /** Whether any rule in force for the tenant looks at request bodies. */
    needsBody(tenantId: string): boolean {
      return active(tenantId).some(({ scenario }) => scenario.rules.some((rule) => rule.match.body))
    },

    /** Delay overrides of the scenarios in force; later scenarios win. */
    delays(tenantId: string): Partial<Record<DelayName, number>> {
      const merged: Partial<Record<DelayName, number>> = {}
      for (const { scenario } of active(tenantId)) {
        for (const [name, ms] of Object.entries(scenario.delays ?? {})) {
          if (ms !== undefined) merged[name as DelayName] = ms
        }
      }
      return merged
    },

    /** Adds a tenant's scenario, replacing one of the same name. */
    add(tenantId: string, scenario: Scenario, definition: unknown): void {
      db.transaction(() => {
        db.delete(scenariosTable)
          .where(and(eq(scenariosTable.tenantId, tenantId), eq(scenariosTable.name, scenario.name)))
          .run()
        db.insert(scenariosTable).values({ tenantId, name: scenario.name, definition }).run()
      })
      byTenant.delete(tenantId)
    },

    /** After a tenant's reset: its scenarios (already deleted with its rows) and counts go. */
    forget(tenantId: string): void {
      byTenant.delete(tenantId)
      matcher.resetCounts(tenantId)
    },

    close(): void {
      for (const stop of stops) stop()
    },
  }
}
