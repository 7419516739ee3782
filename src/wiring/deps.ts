/**
 * What a sandbox is made of, as types: its options (SandboxOptions, the public ones; the
 * resolved ones with defaults) and SandboxDeps, the parts createSandbox() builds and the HTTP
 * app is given. A leaf: it imports only the layers below http (ARCHITECTURE.md), so http and the
 * pages can name these types without importing sandbox.ts, which imports them.
 */
import type { Db } from '../store/driver.js'
import type { Ids } from '../domain/ids.js'
import type { TenantDirectory } from '../domain/tenants.js'
import type { Call } from '../engine/fixtures.js'
import type { ScenarioRegistry } from '../engine/scenarios/registry.js'
import type { Journal } from '../journal/journal.js'
import type { Logger } from '../lib/logger.js'
import type { Deliverer } from '../webhooks/delivery.js'
import type { SandboxOptions } from './options.js'

export type { SandboxOptions, StageSwitches } from './options.js'

export type ResolvedOptions = Required<Omit<SandboxOptions, OptionalOption>> &
  Pick<SandboxOptions, OptionalOption>

type OptionalOption =
  | 'seed'
  | 'tokens'
  | 'webhookUrl'
  | 'webhookSecret'
  | 'fixtures'
  | 'publicUrl'
  | 'stages'
  | 'slowPollMs'
  | 'logWrite'
  | 'clockStart'

export type SandboxDeps = {
  db: Db
  ids: Ids
  tenants: TenantDirectory
  deliverer: Deliverer
  scenarios: ScenarioRegistry
  journal: Journal
  /** The console (`--log`): requests, background events, webhook attempts (lib/logger.ts). */
  logger: Logger
  options: ResolvedOptions
  /** The Host names this sandbox answers to, computed once at start (host-check.ts). */
  allowedHosts: ReadonlySet<string>
  /** The sandbox's own origin as links show it: `publicUrl`, else the listener's address. */
  publicUrl: string
  /** Applies the start-up fixture to a tenant (set when `fixtures` is given). */
  seedTenant?: (token: string) => Promise<void>
  /** Calls the sandbox's own API in-process as a tenant (fixtures). */
  callAs?: (token: string) => Call
}
