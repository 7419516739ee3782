/**
 * A seeded, manual-clock sandbox driven through a mix of everything that moves by itself (card
 * users verified, cards issued and linked, the three transfers, payments, disburses, wallet
 * codes), its clock advanced until all of it has run; and what that left, in a form two runs
 * (two stores, or the code before and after a change) can be compared by: the outbox with the
 * signatures the deliverer would send, run-due's `fired` list, the console's event lines and a
 * dump of the tenant's tables.
 */
import { getTableName } from 'drizzle-orm'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import * as schema from '../../src/db/schema.js'
import { createSandbox } from '../../src/server/sandbox.js'
import { query, tableIn } from '../../src/store/statements.js'
import { sign } from '../../src/webhooks/sign.js'
import { fullIdentity } from '../helpers.js'

const TOKEN = 'due-work-mix'
const WEBHOOK_URL = 'http://127.0.0.1:9/hooks'
const WEBHOOK_SECRET = 'whsec-due-work-mix'

export type MixResult = {
  answers: unknown[]
  outbox: unknown[]
  fired: unknown[]
  console: unknown[]
  tables: Record<string, unknown[]>
}

/** The tables a dump shows; replica_settings is the process's, not the tenant's. */
const DUMPED: SQLiteTable[] = [
  schema.tenants,
  schema.cardUsers,
  schema.cards,
  schema.transactions,
  schema.disputes,
  schema.payments,
  schema.disburses,
  schema.businessOperations,
  schema.walletCodes,
  schema.accounts,
  schema.postings,
  schema.jobs,
  schema.webhookEvents,
  schema.webhookAttempts,
]

/** Runs the mix on a new sandbox on `db` (SQLite's memory when undefined). */
export async function runMix(db: string | undefined): Promise<MixResult> {
  const lines: string[] = []
  const sandbox = createSandbox({
    db,
    clock: 'manual',
    seed: 7,
    tokens: [TOKEN],
    webhookUrl: WEBHOOK_URL,
    webhookSecret: WEBHOOK_SECRET,
    webhookExtensions: true,
    log: 'json',
    logWrite: (text) => lines.push(text),
    // the outbox as the jobs left it: nothing delivered, no tick between two requests
    ticking: false,
    stages: { webhookKick: false },
  })
  try {
    const answers: unknown[] = []
    async function call(method: string, path: string, body?: unknown) {
      const res = await sandbox.app.request(path, {
        method,
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const json = (await res.json()) as any
      if (res.status !== 200)
        throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`)
      return json
    }
    const data = (json: any) => json.data ?? json
    /** A clock call, whose answer goes in the result. */
    async function clock(method: string, path: string, body?: unknown) {
      const answer = data(await call(method, path, body))
      answers.push({ path, ...answer })
      return answer
    }

    // card users: full data (passed by a job), one failing by its phone, one by the widget
    const users: string[] = []
    for (let i = 0; i < 6; i++) {
      const created = data(
        await call(
          'POST',
          '/v1/card-users/create',
          fullIdentity({ phone: `+22177000010${i}`, email: `user${i}@example.com` }),
        ),
      )
      users.push(created.userCard.reference)
    }
    await call('POST', '/v1/card-users/create', fullIdentity({ phone: '+221770000404' }))
    const failing = data(
      await call('POST', '/v1/card-users/create', fullIdentity({ phone: '+221770000500' })),
    ).userCard.reference
    await clock('POST', '/__sandbox/clock/advance', { by: '1s' })
    await call('POST', '/v1/card-users/create', { phone: '+221770000900' })
    await clock('POST', '/__sandbox/clock/advance', { by: '3s' })

    // cards, interleaved with transfers from a funded card and the other kinds, at one instant
    const funded = data(
      await call('POST', '/v1/cards/create', {
        card_user_reference: users[0],
        card_brand: 'visa',
        card_type: 'virtual',
      }),
    ).card.reference
    await call('POST', `/__sandbox/cards/${funded}/transition`, { to: 'issued' })
    await call('POST', `/__sandbox/cards/${funded}/fund`, { amount: 1_000_000 })
    const brands = ['visa', 'mastercard', 'gim']
    const codes: string[] = []
    for (let i = 0; i < 3; i++) {
      codes.push(
        data(
          await call('POST', '/__sandbox/wallet-codes', {
            phone: `+22507000000${i}`,
            network: i === 2 ? 'orange-money-ci' : 'orange-money-sn',
          }),
        ).code,
      )
    }
    for (let round = 0; round < 3; round++) {
      for (let i = 1; i < users.length; i++)
        await call('POST', '/v1/cards/create', {
          card_user_reference: users[i],
          card_brand: brands[(i + round) % 3],
          card_type: (i + round) % 2 ? 'physical' : 'virtual',
        })
      await call('POST', '/v1/transactions/create/card-to-bank', {
        amount: round === 1 ? 4004 : 15_000 + round,
        card_reference: funded,
        bank_id: 'SN012-01001-000123456789-12',
        bank_name: 'BICICI',
      })
      await call('POST', '/v1/transactions/create/card-to-wallet', {
        amount: 7_000 + round,
        card_reference: funded,
        phone: '+221770000001',
        network: 'wave-sn',
      })
      await call('POST', '/v1/transactions/create/wallet-to-card', {
        amount: round === 2 ? 4004 : 2_500 + round,
        card_reference: funded,
        phone: '+221770000001',
        network: 'wave-sn',
      })
      for (const amount of [5_000 + round, 4004, 4008, 2002])
        await call('POST', '/v1/payments/create', {
          amount,
          partner_reference: `order-${round}-${amount}`,
          network: 'wave-sn',
          customer: {
            full_name: 'Awa Diop',
            email: 'awa.diop@example.com',
            phone: '+221770000001',
          },
        })
      for (const amount of [9_000 + round, 4004])
        await call('POST', '/v1/disburses/create', {
          amount,
          network: 'wave-sn',
          partner_reference: `payout-${round}-${amount}`,
          customer: {
            full_name: 'Awa Diop',
            email: 'awa.diop@example.com',
            phone: '+221770000001',
          },
        })
      await clock('POST', '/__sandbox/clock/advance', { by: '1s' })
    }
    await call('POST', '/v1/cards/create', {
      card_user_reference: failing,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    await call('POST', '/v1/cards/link', { identifier: 123456, card_user_reference: users[1] })
    // a code used up, whose expiry then says nothing
    await call('POST', '/v1/transactions/create/wallet-to-card', {
      amount: 3_000,
      card_reference: funded,
      phone: '+225070000000',
      network: 'orange-money-sn',
      code: codes[0],
    })
    await clock('POST', '/__sandbox/clock/advance', { by: '2s' })
    const run = await clock('POST', '/__sandbox/clock/run-due', {})

    const tables = await dump(sandbox.deps.db)
    const tenant = (await sandbox.deps.tenants.forToken(TOKEN))!
    const secret = tenant.webhookSecret ?? WEBHOOK_SECRET
    const outbox = (tables.webhook_events as Record<string, any>[]).map((event) => ({
      id: event.id,
      type: event.type,
      extension: event.extension,
      due: new Date(event.nextAttemptAt).toISOString(),
      body: event.body,
      signature: sign(event.body, secret),
    }))
    const console = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.event === 'event')
      .map(({ time: _wall, ...line }) => line)
    return { answers, outbox, fired: run.fired, console, tables }
  } finally {
    sandbox.close()
  }
}

/** Every row of the dumped tables, in key order, with the one wall-clock column left out. */
async function dump(db: Parameters<typeof query>[0]): Promise<Record<string, unknown[]>> {
  const tables: Record<string, unknown[]> = {}
  for (const table of DUMPED) {
    const rows = await query<Record<string, unknown>[]>(db, 'all', (db, t) =>
      db.select().from(tableIn(t, table)),
    )
    for (const row of rows) delete row.clockWallMs
    tables[getTableName(table)] = rows.sort(byKey)
  }
  return tables
}

function byKey(a: Record<string, unknown>, b: Record<string, unknown>): number {
  if (typeof a.seq === 'number') return a.seq - (b.seq as number)
  const [x, y] = [JSON.stringify(a), JSON.stringify(b)]
  return x < y ? -1 : x > y ? 1 : 0
}
