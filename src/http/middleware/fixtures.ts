/**
 * `--fixtures` (PRODUCT §8): a new (or reset) tenant is seeded with the start-up fixture before
 * its first request is answered. Mounted only when the sandbox has a fixture.
 *
 * A seeding the store cut off (PostgreSQL gone away at one of its steps) answers 503, and the
 * tenant is emptied again, its fixture pending once more, so that a later request seeds it whole:
 * at once if the store answers again by then, else by this process's next request of the token,
 * before anything else. (Another replica's requests meanwhile see the part seeded, as they would
 * during any seeding; the undo then removes what they wrote, as a reset would.) A fixture whose
 * own step fails stays as far as it got: a configuration problem, answered 500.
 */
import type { MiddlewareHandler } from 'hono'
import type { SandboxDeps } from '../../wiring/deps.js'
import { SandboxError } from '../../domain/errors.js'
import { FixtureError } from '../../engine/fixtures.js'
import type { AppEnv } from '../../wiring/env.js'
import { retriedWhileUnreachable, storeUnreachable } from '../../store/open.js'
import { STORE_UNREACHABLE } from '../errors.js'
import { contextAt } from './tenant.js'

export function fixtures(): MiddlewareHandler<AppEnv> {
  /** Tokens whose seeding was cut off and not yet undone: the undo under way, if one is. */
  const cutOff = new Map<string, Promise<void> | undefined>()

  /** Empties the token's tenant again (one undo at a time), its fixture pending once more. */
  function undo(deps: SandboxDeps, token: string): Promise<void> {
    let undoing = cutOff.get(token)
    if (!undoing) {
      undoing = (async () => {
        const { retiredId } = await deps.tenants.reset(token)
        deps.scenarios.forget(retiredId)
        deps.journal.clear(retiredId)
      })().then(
        () => void cutOff.delete(token),
        (error: unknown) => {
          cutOff.set(token, undefined)
          throw error
        },
      )
      cutOff.set(token, undoing)
    }
    return undoing
  }

  return async function fixtures(c, next) {
    const deps = c.get('deps')
    if (!deps.seedTenant) return await next()
    const token = c.get('tenant').token
    let tenant = c.get('tenant')
    let changed = false
    if (cutOff.has(token)) {
      await undo(deps, token)
      tenant = (await deps.tenants.forToken(token))!
      changed = true
    }
    if (await deps.tenants.claimFixture(tenant)) {
      try {
        await deps.seedTenant(token)
      } catch (error) {
        const unreachable =
          error instanceof FixtureError ? error.storeUnreachable : storeUnreachable(error)
        if (!unreachable) throw error
        cutOff.set(token, undefined)
        // the store may already answer again (a connection cut, not a server down); if not,
        // the token's next request undoes it first
        await retriedWhileUnreachable(() => undo(deps, token)).catch((undoError: unknown) => {
          if (!storeUnreachable(undoError)) throw undoError
        })
        throw new SandboxError('unavailable', STORE_UNREACHABLE)
      }
      changed = true
    }
    if (changed) {
      // the request's "now" comes after what the seeding made
      const seeded = (await deps.tenants.forToken(token))!
      c.set('tenant', seeded)
      c.set('ctx', contextAt(deps, seeded))
    }
    await next()
  }
}
