// Baseline: bare Hono doing a card's creation on SQLite and nothing else. The sandbox's own
// schema (dist/migrated-schema.json, tables and indexes as the migrations leave them) in a
// :memory: database with the sandbox's 8 KiB pages; POST reads the JSON body, then in one
// transaction runs what POST /v1/cards/create runs (the card user's status, the card inserted
// and read back, its issuance job inserted) with better-sqlite3's prepared statements, and
// answers the card as the sandbox does. GET answers the fixed page as bare Hono does. What the
// sandbox adds to this is its own: validation, tenants, the journal, the pipeline's stages.
import { serve } from '@hono/node-server'
import Database from 'better-sqlite3'
import { Hono } from 'hono'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { FIXED_BODY } from './body.mjs'

const TENANT = 'bench'
const USER = '00000000-0000-4000-8000-000000000000' // setup.mjs's BASELINE_BODY
const ISSUING_MS = 5_000

const db = new Database(':memory:')
db.pragma('page_size = 8192')
const { statements } = JSON.parse(
  readFileSync(new URL('../../dist/migrated-schema.json', import.meta.url), 'utf8'),
)
for (const statement of statements) db.exec(statement)
db.prepare(
  `INSERT INTO card_users (reference, tenant_id, flow, phone, status, created_at, updated_at)
   VALUES (?, ?, 'api', '+221770000000', 'passed', 0, 0)`,
).run(USER, TENANT)

const cardUser = db.prepare(
  'SELECT status, phone FROM card_users WHERE tenant_id = ? AND reference = ?',
)
const insertCard = db.prepare(
  `INSERT INTO cards (reference, tenant_id, card_user_reference, brand, type, status, created_at,
   updated_at) VALUES (?, ?, ?, ?, ?, 'issuing', ?, ?) RETURNING *`,
)
const insertJob = db.prepare(
  `INSERT INTO jobs (tenant_id, resource, key, resource_seq, action, due_at)
   VALUES (?, 'cards', ?, ?, 'issued', ?)`,
)
const createCard = db.transaction((body) => {
  const user = cardUser.get(TENANT, body.card_user_reference)
  if (user?.status !== 'passed') throw new Error('the card user has not passed')
  const now = Date.now()
  const card = insertCard.get(
    randomUUID(),
    TENANT,
    body.card_user_reference,
    body.card_brand,
    body.card_type,
    now,
    now,
  )
  insertJob.run(TENANT, card.reference, card.seq, now + ISSUING_MS)
  return card
})

const app = new Hono()
app.get('*', (c) => c.body(FIXED_BODY, 200, { 'Content-Type': 'application/json' }))
app.post('*', async (c) => {
  const card = createCard(JSON.parse(await c.req.text()))
  return c.json({
    message: 'Card is being generated',
    statusCode: 200,
    data: {
      card: {
        reference: card.reference,
        card_number: card.card_number,
        card_brand: card.brand,
        card_type: card.type,
        cvv2: card.cvv2,
        expiry: card.expiry,
        balance: 0,
        status: card.status,
      },
    },
  })
})
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
  console.log(`listening http://127.0.0.1:${info.port}`),
)
void server
