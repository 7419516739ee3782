#!/usr/bin/env node
// Checks the package as a client team installs it (README, "Add it to your project"): `npm pack`,
// the tarball installed into a fresh project, and there: the command (`npx --no -- card-sandbox`),
// `startSandbox` and `card-sandbox/client` imported and required (CommonJS), the vitest kit in a
// vitest run, the Jest setup in a Jest run, and `tsc --noEmit` (strict, skipLibCheck off) on files
// that use every exported type from an ES module and from a CommonJS module; then the TypeScript
// examples of README.md and docs/*.md, strict, against the installed package's declarations
// (scripts/doc-examples.mjs). The runners and tsc are this repository's own (devDependencies),
// run on the fresh project.
import { execFileSync, spawn } from 'node:child_process'
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { checkPages } from './doc-examples.mjs'

const root = resolve(import.meta.dirname, '..')
const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-pack-'))
const bin = (path) => join(root, 'node_modules', path)
const run = (cmd, args, cwd = dir, env = process.env) =>
  execFileSync(cmd, args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })
const write = (name, text) => writeFileSync(join(dir, name), text)
const check = (ok, message) => {
  if (!ok) throw new Error(message)
  console.log(`ok: ${message}`)
}

try {
  const tarball = run('npm', ['pack', '--silent', '--pack-destination', dir], root)
    .trim()
    .split('\n')
    .pop()
  console.log(`packed ${tarball}`)
  const listed = run('tar', ['-tzf', join(dir, tarball)])
  for (const file of ['LICENSE', 'CHANGELOG.md', 'README.md'])
    check(listed.includes(`package/${file}\n`), `the tarball holds ${file}`)
  write('package.json', JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  run('npm', ['install', '--no-audit', '--no-fund', join(dir, tarball)])

  // 1. the command, never fetched from the registry (--no); its own process group, so that npx
  // and the sandbox under it stop together
  const child = spawn('npx', ['--no', '--', 'card-sandbox', '--port', '0', '--log', 'silent'], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise((ok) => child.once('exit', ok))
  const baseUrl = await new Promise((ok, fail) => {
    let out = ''
    const timer = setTimeout(() => fail(new Error(`no banner after 30 s: ${out}`)), 30_000)
    child.stdout.on('data', (chunk) => {
      out += chunk
      const match = /API\s+(http:\/\/\S+\/v1)/.exec(out)
      if (match) {
        clearTimeout(timer)
        ok(match[1])
      }
    })
    child.once('exit', (code) => fail(new Error(`exited ${code}: ${out}`)))
  })
  const res = await fetch(`${baseUrl}/cards`, { headers: { Authorization: 'Bearer pack' } })
  const body = await res.json()
  check(
    res.status === 200 && body.statusCode === 200,
    `npx --no -- card-sandbox answered GET /v1/cards`,
  )

  // 2. the client, imported (ES module) and required (CommonJS), against that command
  const esm =
    "import { createSandboxClient } from 'card-sandbox/client'\n" +
    `const client = createSandboxClient({ baseUrl: '${baseUrl}', token: 'pack' })\n` +
    'console.log((await client.clock()).mode)'
  check(
    run(process.execPath, ['--input-type=module', '-e', esm]).trim() === 'real',
    'import card-sandbox/client',
  )
  const cjs =
    "const { createSandboxClient } = require('card-sandbox/client')\n" +
    `createSandboxClient({ baseUrl: '${baseUrl}', token: 'pack' }).clock().then((c) => console.log(c.mode))`
  check(
    run(process.execPath, ['--input-type=commonjs', '-e', cjs]).trim() === 'real',
    'require card-sandbox/client',
  )
  // the webhook helpers (node only), imported and required, against that command
  const receiverScript = (load) =>
    `${load}\nconst client = createSandboxClient({ baseUrl: '${baseUrl}', token: 'pack' })\n` +
    'webhookReceiver(client).then(async (r) => {\n' +
    '  const pointed = (await client.webhook()).url === r.url\n  await r.close()\n' +
    "  const { body, signature } = signPayload({ event: 'x' }, 'k')\n" +
    "  console.log(pointed && verifySignature(body, signature, 'k'))\n})"
  check(
    run(process.execPath, [
      '--input-type=module',
      '-e',
      receiverScript(
        "import { createSandboxClient } from 'card-sandbox/client'\n" +
          "import { webhookReceiver, signPayload, verifySignature } from 'card-sandbox/testing'",
      ),
    ]).trim() === 'true',
    'import card-sandbox/testing: a webhook receiver pointed at itself, signatures',
  )
  check(
    run(process.execPath, [
      '--input-type=commonjs',
      '-e',
      receiverScript(
        "const { createSandboxClient } = require('card-sandbox/client')\n" +
          "const { webhookReceiver, signPayload, verifySignature } = require('card-sandbox/testing')",
      ),
    ]).trim() === 'true',
    'require card-sandbox/testing',
  )
  process.kill(-child.pid, 'SIGTERM')
  await exited
  child.stdout.destroy()

  // 3. the library in-process, imported and required
  const start = (load) =>
    `${load}\nstartSandbox({ port: 0, clock: 'manual' }).then(async (s) => {\n` +
    "  const r = await fetch(s.baseUrl + '/cards', { headers: { Authorization: 'Bearer pack' } })\n" +
    '  console.log(r.status)\n  await s.close()\n})'
  const imported = start("import { startSandbox } from 'card-sandbox'")
  check(
    run(process.execPath, ['--input-type=module', '-e', imported]).trim() === '200',
    "import { startSandbox } from 'card-sandbox'",
  )
  const required = start("const { startSandbox } = require('card-sandbox')")
  check(
    run(process.execPath, ['--input-type=commonjs', '-e', required]).trim() === '200',
    "require('card-sandbox').startSandbox",
  )

  // 4. the vitest kit: a run whose globalSetup is card-sandbox/vitest, options from its config
  write(
    'vitest.config.mjs',
    "export default { test: { include: ['kit.vitest.mjs'], globalSetup: ['card-sandbox/vitest'],\n" +
      "  provide: { cardSandboxOptions: { clock: 'real' } } } }\n",
  )
  write(
    'kit.vitest.mjs',
    "import { expect, inject, test } from 'vitest'\n" +
      "import { createSandboxClient } from 'card-sandbox/client'\n" +
      "test('the kit started a sandbox with the config options', async () => {\n" +
      "  expect(process.env.CARD_SANDBOX_URL).toBe(inject('cardSandboxUrl'))\n" +
      "  const client = createSandboxClient({ baseUrl: inject('cardSandboxUrl'), token: 'kit' })\n" +
      "  expect((await client.clock()).mode).toBe('real')\n})\n",
  )
  run(process.execPath, [
    bin('vitest/vitest.mjs'),
    'run',
    '--root',
    dir,
    '--config',
    join(dir, 'vitest.config.mjs'),
  ])
  check(true, 'a vitest run with the card-sandbox/vitest globalSetup')

  // 5. the Jest kit: globalSetup / globalTeardown, options from the config's globals
  write(
    'jest.config.cjs',
    "module.exports = { testMatch: ['**/kit.jest.cjs'], globalSetup: 'card-sandbox/jest',\n" +
      "  globalTeardown: 'card-sandbox/jest/teardown', globals: { cardSandbox: { seed: 7 } } }\n",
  )
  write(
    'kit.jest.cjs',
    "const { createSandboxClient } = require('card-sandbox/client')\n" +
      "test('the Jest setup started a sandbox, its origin in CARD_SANDBOX_URL', async () => {\n" +
      "  const client = createSandboxClient({ baseUrl: process.env.CARD_SANDBOX_URL, token: 'jest' })\n" +
      "  expect((await client.clock()).mode).toBe('manual')\n" +
      "  const cards = await client.v1('GET', '/cards')\n" +
      '  expect(cards.statusCode).toBe(200)\n})\n',
  )
  run(
    process.execPath,
    [bin('jest/bin/jest.js'), '--rootDir', dir, '--config', join(dir, 'jest.config.cjs'), '--ci'],
    dir,
    {
      ...process.env,
      CARD_SANDBOX_URL: '',
    },
  )
  check(true, 'a Jest run with card-sandbox/jest and card-sandbox/jest/teardown')

  // 6. declarations: every exported type, strict, skipLibCheck off, from ESM and from CommonJS
  const uses = (from) =>
    `import { startSandbox, createSandbox, type SandboxOptions, type StageSwitches, type SandboxApp,\n` +
    `  type Sandbox, type RunningSandbox } from '${from('card-sandbox')}'\n` +
    `import { createSandboxClient, sandboxOrigin, SandboxClientError, type SandboxClient,\n` +
    '  type SandboxClientOptions, type ResourceStates, type TransitionResource, type Transition,\n' +
    '  type ClockMode, type Clock, type Duration, type DelayName, type Delays, type Job,\n' +
    '  type PageMeta, type Page, type PageQuery, type Transaction, type CardFunding,\n' +
    '  type BusinessAccount, type DisputeReason, type Dispute, type WalletCodeNetwork,\n' +
    '  type WalletCode, type WebhookEndpoint, type WebhookEventStatus, type WebhookAttempt,\n' +
    '  type WebhookEvent, type JournalEntry, type JournalFilter, type Scenario, type FieldMatcher,\n' +
    `  type ScenarioRule, type ScenarioInForce, type Fixture, type TypedV1, type V1PageQuery,
  type FiredJob, type SnapshotInfo, type SandboxErrorBody, type FullDataCardUserBody,
  type WidgetCardUserBody, type CardUserIdentityBody, type CreatedCardUser, type WebhookEventName,
  type WebhookEvents, type WebhookPayload } from '${from('card-sandbox/client')}'\n` +
    `import { webhookReceiver, verifySignature, signPayload, type Delivery, type WebhookReceiver,\n` +
    `  type WebhookReceiverOptions, type UnverifiedDelivery } from '${from('card-sandbox/testing')}'\n` +
    `import jestSetup, { type JestProjectConfig } from '${from('card-sandbox/jest')}'\n` +
    `import jestTeardown from '${from('card-sandbox/jest/teardown')}'\n` +
    'const options: SandboxOptions = { port: 0, quirks: false, stages: {} satisfies StageSwitches }\n' +
    'export async function main(): Promise<void> {\n' +
    '  const running: RunningSandbox = await startSandbox(options)\n' +
    '  const app: SandboxApp = running.app\n  const inMemory: Sandbox = createSandbox()\n' +
    "  const client: SandboxClient = createSandboxClient({ baseUrl: running.url, token: 't' } satisfies SandboxClientOptions)\n" +
    "  const moved: Transition<'cards'> = await client.transition('cards', '', 'issued')\n" +
    "  const state: ResourceStates['cards'] = moved.to\n  const resource: TransitionResource = 'cards'\n" +
    "  const clock: Clock = await client.clock()\n  const mode: ClockMode = clock.mode\n  const by: Duration = '5s'\n" +
    '  const fired: FiredJob[] = (await client.runUntilIdle({ until: new Date() })).fired\n' +
    "  await client.setClock('2026-03-01T09:00:00Z')\n" +
    "  const snapshot: SnapshotInfo = await client.snapshot('s')\n  await client.restore(snapshot.name)\n" +
    '  const receiverOptions: WebhookReceiverOptions = { respond: (d: Delivery) => (d.verified ? 200 : 500) }\n' +
    '  const receiver: WebhookReceiver = await webhookReceiver(client, receiverOptions)\n' +
    "  const delivery: Delivery<'card_creation.successful'> = await receiver.waitFor('card_creation.successful', (d) => d.data.reference !== '', { timeout: 1 })\n" +
    '  const brand0: string = delivery.data.card_brand\n  const eventName: WebhookEventName = delivery.event\n' +
    "  const payload: WebhookPayload<'card_creation.failed'> | undefined = undefined\n" +
    "  const events: WebhookEvents['transaction.success'] | undefined = undefined\n" +
    '  const unverified: UnverifiedDelivery | undefined = receiver.deliveries.find((d) => !d.verified)\n' +
    "  const signed: boolean = verifySignature(signPayload(delivery.body as object, 's').body, delivery.headers['x'], 's')\n" +
    '  await receiver.close()\n' +
    "  const delay: DelayName = 'card_issuing'\n  const delays: Delays = await client.delays()\n  const jobs: Job[] = await client.jobs()\n" +
    '  const meta: PageMeta | undefined = undefined\n  const query: PageQuery = { page: 1 }\n' +
    '  const requests: Page<JournalEntry> = await client.requests({ page: 1 } satisfies JournalFilter)\n' +
    '  const transaction: Transaction | undefined = undefined\n  const funding: CardFunding | undefined = undefined\n' +
    '  const account: BusinessAccount = await client.business()\n  const reason: DisputeReason | undefined = undefined\n' +
    '  const dispute: Dispute | undefined = undefined\n  const network: WalletCodeNetwork = "orange-money-sn"\n' +
    '  const code: WalletCode | undefined = undefined\n  const endpoint: WebhookEndpoint = await client.webhook()\n' +
    '  const status: WebhookEventStatus = "pending"\n  const attempt: WebhookAttempt | undefined = undefined\n' +
    '  const event: WebhookEvent | undefined = undefined\n  const matcher: FieldMatcher | undefined = undefined\n' +
    '  const rule: ScenarioRule | undefined = undefined\n  const scenario: Scenario | undefined = undefined\n' +
    '  const inForce: ScenarioInForce[] = await client.scenarios()\n  const fixture: Fixture = { name: "cards" }\n' +
    '  const config: JestProjectConfig = { globals: { cardSandbox: options } }\n' +
    '  await jestSetup({}, config)\n  await jestTeardown()\n' +
    '  const typed: TypedV1 = client.v1\n' +
    "  const identity: FullDataCardUserBody = { phone: '', first_name: '', last_name: '', address: '', id_no: '', selfie_image: '', id_image: '' }\n" +
    '  const person: string = (await typed.cardUsers.create(identity)).data.userCard.reference\n' +
    "  const widget: WidgetCardUserBody = { phone: '' }\n" +
    "  const viaWidget: CreatedCardUser<'widget'> = await typed.cardUsers.create(widget)\n" +
    "  const resubmit: CardUserIdentityBody = { card_user_reference: person, first_name: '' }\n" +
    "  const order = await typed.cards.create({ card_user_reference: '', card_brand: 'visa', card_type: 'virtual' })\n" +
    "  const brand: 'Visa' | 'Mastercard' | 'Gim' = order.data.card.card_brand\n" +
    '  const cards = await client.v1.cards.list({ page: 1 } satisfies V1PageQuery)\n' +
    "  const untyped: { statusCode: number } = await client.v1('GET', '/cards')\n" +
    '  void [brand, cards.meta.total, untyped]\n' +
    '  const error = new SandboxClientError("GET", "/", 500, null)\n' +
    '  const errorBody: SandboxErrorBody = error.body\n' +
    '  void [brand0, eventName, payload, events, unverified, viaWidget, resubmit, errorBody.errors]\n' +
    '  void [app, inMemory, fired, signed, state, resource, mode, by, delay, delays, jobs, meta, query, requests, transaction, funding,\n' +
    '    account, reason, dispute, network, code, endpoint, status, attempt, event, matcher, rule, scenario, inForce,\n' +
    '    fixture, error, sandboxOrigin(running.url)]\n  inMemory.close()\n  await running.close()\n}\n'
  write(
    'types.mts',
    uses((name) => name),
  )
  write(
    'types.cts',
    uses((name) => name),
  )
  write(
    'tsconfig.json',
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        types: [],
      },
      files: ['types.mts', 'types.cts'],
    }),
  )
  run(process.execPath, [bin('typescript/bin/tsc'), '-p', dir])
  check(true, 'tsc --noEmit, strict, skipLibCheck off: every exported type from ESM and CommonJS')

  // 7. the docs' TypeScript examples, one module per page, against the installed package; what
  // they import besides it (vitest, node's types) is this repository's own, linked in
  for (const name of ['vitest', '@types/node']) {
    mkdirSync(join(dir, 'node_modules', name, '..'), { recursive: true })
    symlinkSync(bin(name), join(dir, 'node_modules', name), 'dir')
  }
  const pages = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ]
  const examples = checkPages(
    pages.map((name) => ({ name, markdown: readFileSync(join(root, name), 'utf8') })),
    { dir },
  )
  if (examples.errors.length) {
    console.error(examples.errors.join('\n'))
    throw new Error(`${examples.errors.length} type errors in the docs' TypeScript examples`)
  }
  check(
    true,
    `tsc --strict: the TypeScript examples of ${pages.length} pages (${examples.compiled} blocks, ${examples.skipped} skipped)`,
  )
  console.log('pack check passed')
} finally {
  rmSync(dir, { recursive: true, force: true })
}
