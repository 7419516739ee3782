/**
 * Commands that read or move a running sandbox's tenant: `reset`, `clock`,
 * `transition`, `fixtures`, `journal`. Each is one control-plane call through the client (or a
 * few), printed for a person.
 */
import type { JournalEntry, TransitionResource } from '../../clients/client.js'
import { helpRow } from '../help.js'
import { expectArgs, remoteCommand, untilStopped, UsageError, type Remote } from './remote.js'

export const resetCommand = remoteCommand(
  { name: 'reset', usage: 'reset', summary: 'empty the tenant: every resource, job and event' },
  async ({ client, positionals, out }) => {
    expectArgs(positionals, [])
    const { tenant } = await client.reset()
    out(`reset: the tenant starts over (now ${tenant})`)
  },
)

export const clockCommand = remoteCommand(
  {
    name: 'clock',
    usage: 'clock [advance <duration> | set <ISO> | run-due [--until <ISO>]]',
    summary: "show the tenant's clock, move it, or run until idle",
    help: [helpRow('--until <ISO>', 'run-due: stop before the jobs due after this instant')],
    options: { until: { type: 'string' } },
  },
  async ({ client, positionals, values, out }) => {
    const [action, argument] = positionals
    if (action === undefined) {
      const clock = await client.clock()
      out(`clock: ${clock.mode} ${clock.now}${clock.mode === 'real' ? ` ×${clock.speed}` : ''}`)
      return
    }
    if (action === 'advance') {
      const [, by] = expectArgs(positionals, ['advance', 'duration'])
      const moved = await client.advanceClock(by)
      out(`clock: ${moved.mode} ${moved.now} (${moved.transitions_run} jobs ran)`)
      return
    }
    if (action === 'set') {
      expectArgs(positionals, ['set', 'instant'])
      const set = await client.setClock(argument)
      out(`clock: ${set.mode} ${set.now} (${set.transitions_run} jobs ran)`)
      return
    }
    if (action === 'run-due') {
      // Stryker disable next-line StringLiteral: the action is positional 0, never missing, so its name is never printed
      expectArgs(positionals, ['run-due'])
      const until = values.until as string | undefined
      const run = await client.runUntilIdle(until === undefined ? {} : { until })
      for (const fired of run.fired) {
        const what =
          fired.what ?? `${fired.from} → ${fired.to}${fired.meaning ? ` (${fired.meaning})` : ''}`
        out(`${fired.at}  ${fired.resource} ${fired.reference} ${what}`)
      }
      out(
        `clock: ${run.mode} ${run.now} (${run.transitions_run} jobs ran; idle${until ? ` until ${until}` : ''})`,
      )
      return
    }
    throw new UsageError(`unknown clock action ${action} (advance, set, run-due)`)
  },
)

const RESOURCES: TransitionResource[] = [
  'card-users',
  'cards',
  'transactions',
  'payments',
  'disburses',
  'disputes',
]

export const transitionCommand = remoteCommand(
  {
    name: 'transition',
    usage: 'transition <resource> <reference> <state>',
    summary: `move a resource to a state (resources: ${RESOURCES.join(', ')})`,
  },
  async ({ client, positionals, out }) => {
    const [resource, reference, to] = expectArgs(positionals, ['resource', 'reference', 'state'])
    if (!RESOURCES.includes(resource as TransitionResource))
      throw new UsageError(`unknown resource ${resource} (${RESOURCES.join(', ')})`)
    const moved = await client.transition(resource as 'cards', reference, to as 'issued')
    out(`${resource} ${reference}: ${moved.from} → ${moved.to}`)
  },
)

export const fixturesCommand = remoteCommand(
  {
    name: 'fixtures',
    usage: 'fixtures list | fixtures load <name>',
    summary: 'list the fixtures, or load one into the tenant (all or nothing)',
  },
  async ({ client, positionals, out }) => {
    const [action] = positionals
    if (action === 'list' || action === undefined) {
      // Stryker disable next-line StringLiteral: the action is positional 0, never missing, so its name is never printed
      expectArgs(positionals, action === undefined ? [] : ['list'])
      for (const fixture of await client.fixtures())
        out(`${fixture.name.padEnd(28)} ${fixture.description ?? ''}`.trimEnd())
      return
    }
    if (action === 'load') {
      const [, name] = expectArgs(positionals, ['load', 'name'])
      const applied = await client.applyFixture({ name })
      out(`fixtures: ${applied.name} loaded (${applied.steps} steps)`)
      return
    }
    throw new UsageError(`unknown fixtures action ${action} (list, load)`)
  },
)

/** How often `journal --tail` asks for what is new. */
const TAIL_INTERVAL_MS = 500

export const journalCommand = remoteCommand(
  {
    name: 'journal',
    usage: 'journal [--tail]',
    summary: "the tenant's last requests, oldest first; --tail follows new ones until Ctrl-C",
    help: [helpRow('--tail', 'keep printing requests as they arrive')],
    options: { tail: { type: 'boolean' } },
  },
  async ({ client, positionals, values, out, env }) => {
    expectArgs(positionals, [])
    let seen = await printNew(client, out, new Set())
    if (!values.tail) return
    // a sandbox gone away ends the tail as an error: said, exit code 1
    let lost: (error: unknown) => void = () => {}
    const gone = new Promise<never>((_, reject) => (lost = reject))
    const timer = setInterval(() => {
      printNew(client, out, seen).then((now) => (seen = now), lost)
    }, TAIL_INTERVAL_MS)
    try {
      await untilStopped(env, gone)
    } finally {
      clearInterval(timer)
    }
  },
)

/** Prints the journal's newest page entries not printed yet, oldest first; returns the ids seen. */
async function printNew(
  client: Remote['client'],
  out: Remote['out'],
  seen: Set<string>,
): Promise<Set<string>> {
  const { data } = await client.requests({ per_page: 100 })
  const fresh = data.filter((entry) => !seen.has(entry.id)).reverse()
  for (const entry of fresh) out(journalLine(entry))
  return new Set(data.map((entry) => entry.id))
}

/**
 * `<sandbox time>  wall <machine time>  METHOD path status latency`: on a manual clock the
 * sandbox time stays put, and the wall time tells requests apart.
 */
function journalLine(entry: JournalEntry): string {
  // a sandbox older than wall_at has only its own time; the query keeps its `?` (`?per_page=5`), or ''
  const wall = entry.wall_at ? `  wall ${entry.wall_at}` : ''
  return `${entry.at}${wall}  ${entry.method.padEnd(6)} ${entry.path}${entry.query} ${entry.status} ${entry.latency_ms}ms`
}
