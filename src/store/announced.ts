/**
 * What the store announces of writes by other processes sharing it (PostgreSQL: replicas, each
 * listening on its schema's channel: store/postgres/listener.ts), kept per connection until the
 * tick's tasks look. An idle replica's tick then asks SQL nothing: the due index is lowered from
 * the announced jobs, and webhook delivery and the reset sweep run when something was announced
 * for them. What no announcement tells of (a transaction rolled back, a lease that ran out after
 * a replica died, the events a replica wrote and died before sending) is found by a slow poll,
 * which announces everything; so do the start and a listening connection made again
 * (announcements may have been missed meanwhile). One more case is left to the poll: a job
 * written while an earlier one of its tenant was pending is not announced (it changes no
 * replica's earliest instant), and if that earlier one runs, and its replica reads the
 * tenant's next instant, in the milliseconds before the later job's transaction commits, the
 * later job runs at the next slow poll (or at the tenant's next request) instead of its instant.
 *
 * On SQLite (one process) nothing is announced: every write is this process's own, and the tick
 * asks the tables as it always has.
 */
import type { Db } from './driver.js'
import { perConnection, storeIsShared } from './statements.js'

export type Announced = {
  /** Every tenant's earliest due instant is to be read again. */
  everything: boolean
  /** Jobs written due before every other of their tenant's, by tenant: the earliest instant. */
  jobs: Map<string, number>
  /** Tenants whose clock (or id: a reset) changed: their earliest due instant to read again. */
  tenants: Set<string>
  /** A clock moved (a retry may be due), or everything: webhook delivery reads its wake-ups again. */
  webhooks: boolean
  /** A tenant was retired: its rows are to be swept. */
  retired: boolean
}

/** What was announced on `db`'s connection and not yet looked at; a task clears what it takes. */
export const announcedOf = perConnection((): Announced => ({
  everything: true,
  jobs: new Map(),
  tenants: new Set(),
  webhooks: true,
  retired: true,
}))

/**
 * Whether the tick is to wait for announcements rather than ask the tables: other processes
 * write to the store (PostgreSQL), and they announce what they write.
 */
export function announcesWrites(db: Db): boolean {
  return storeIsShared(db)
}

/** Everything may have changed: the slow poll, a (re)connection of the listener. */
export function announceEverything(db: Db): void {
  const announced = announcedOf(db)
  announced.everything = announced.webhooks = announced.retired = true
}

/**
 * With replicas, hears of the others' writes and keeps them here (store/postgres/listener.ts)
 * until the returned function is called, announcing everything every `slowPollMs`; undefined
 * where no other process writes.
 */
export function listenForWrites(db: Db, slowPollMs?: number): (() => Promise<void>) | undefined {
  return db.driver.replicas?.listenForWrites(
    db,
    {
      announce: (payload) => announce(db, payload),
      announceEverything: () => announceEverything(db),
    },
    slowPollMs,
  )
}

/**
 * One announcement as the database's triggers word it (drizzle-pg, announce_writes):
 * `j <tenant> <due at>` (a job due before every other of its tenant), `t <tenant>`, `r`.
 * Anything else is ignored.
 */
export function announce(db: Db, payload: string): void {
  const announced = announcedOf(db)
  const [kind, tenantId, dueAt] = payload.split(' ')
  if (kind === 'j' && tenantId && Number.isSafeInteger(Number(dueAt))) {
    const known = announced.jobs.get(tenantId)
    if (known === undefined || Number(dueAt) < known) announced.jobs.set(tenantId, Number(dueAt))
  } else if (kind === 't' && tenantId) {
    announced.tenants.add(tenantId)
    // a clock moved may have brought a retry due: delivery reads its wake-ups again
    announced.webhooks = true
  } else if (kind === 'r') announced.retired = true
}
