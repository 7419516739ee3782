/**
 * Scenarios (PRODUCT §9): every example in scenarios/ loaded and checked end to end through the
 * HTTP API; malformed files give precise errors; edits are picked up without a restart.
 */
import { copyFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { startSandbox } from '../../src/index.js'
import { loadScenarioFile, parseScenario, ScenarioError } from '../../src/engine/scenarios/load.js'
import { fullIdentity, newSandbox } from '../helpers.js'
import { until } from '../webhooks/receiver.js'
import { tempDir } from '../temp-dir.js'

const SCENARIOS = new URL('../../scenarios/', import.meta.url).pathname
const example = (name: string) => join(SCENARIOS, `${name}.yaml`)

type Sandbox = ReturnType<typeof newSandbox>
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function withScenario(name: string) {
  const s = newSandbox({ scenarios: [example(name)] })
  cleanups.push(() => s.close())
  return s
}

const advance = (s: Sandbox, by: string | number) =>
  s.call('POST', '/__sandbox/clock/advance', { by })
const userStatus = async (s: Sandbox, ref: string) =>
  (await s.call('GET', '/v1/card-users?per_page=100')).body.data[0].data.find(
    (u: any) => u.reference === ref,
  ).status
const transaction = async (s: Sandbox, slug: string) =>
  (await s.call('GET', '/v1/transactions?per_page=100')).body.data.transaction.find(
    (t: any) => t.slug === slug,
  )

describe('the example scenarios', () => {
  it('happy-path: everything succeeds within a second of sandbox time', async () => {
    const s = withScenario('happy-path')
    const user = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    await advance(s, '200ms')
    expect(await userStatus(s, user)).toBe('passed')
    const card = (
      await s.call('POST', '/v1/cards/create', {
        card_user_reference: user,
        card_brand: 'visa',
        card_type: 'virtual',
      })
    ).body.data.card.reference
    await advance(s, '300ms')
    expect((await s.call('GET', '/v1/cards')).body.data[0].status).toBe('issued')
    await s.call('POST', `/__sandbox/cards/${card}/fund`, { amount: 1_000 })
    const t = await s.call('POST', '/v1/transactions/create/card-to-wallet', {
      amount: 500,
      card_reference: card,
      phone: '+221770000000',
      network: 'mtn-ci',
    })
    await advance(s, '500ms')
    expect((await transaction(s, t.body.data.transaction.slug)).status).toBe('success')
    expect((await s.call('GET', '/__sandbox/delays')).body.data.transaction_settlement).toBe(500)
  })

  it('verification-rejected: a full-data user fails after 2 s, and again after a resubmit', async () => {
    const s = withScenario('verification-rejected')
    const user = (await s.call('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    await advance(s, 1999)
    expect(await userStatus(s, user)).toBe('pending')
    await advance(s, 1)
    expect(await userStatus(s, user)).toBe('failed')
    await s.call('POST', '/v1/card-users/resubmit', { card_user_reference: user, id_no: '42' })
    await advance(s, '2s')
    expect(await userStatus(s, user)).toBe('failed')
  })

  it('card-issuing-failure: a virtual mastercard fails, a physical one issues', async () => {
    const s = withScenario('card-issuing-failure')
    const user = await s.verifiedUser()
    const doomed = await s.call('POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'mastercard',
      card_type: 'virtual',
    })
    expect(doomed.headers.get('x-card-sandbox-scenario')).toBe(
      'card-issuing-failure/virtual mastercards fail',
    )
    const fine = await s.call('POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'mastercard',
      card_type: 'physical',
    })
    await advance(s, '5s')
    const cards = (await s.call('GET', '/v1/cards')).body.data
    expect(cards.find((c: any) => c.reference === doomed.body.data.card.reference).status).toBe(
      'failed',
    )
    expect(cards.find((c: any) => c.reference === fine.body.data.card.reference).status).toBe(
      'issued',
    )
  })

  it('transfers-failing: large bank transfers and wave-sn transfers fail and release their hold', async () => {
    const s = withScenario('transfers-failing')
    const { reference } = await s.fundedCard()
    const before = (await s.call('GET', '/v1/cards')).body.data[0].balance
    const big = await s.call('POST', '/v1/transactions/create/card-to-bank', {
      amount: 100_000,
      card_reference: reference,
      bank_id: 'B',
      bank_name: 'BICICI',
    })
    const small = await s.call('POST', '/v1/transactions/create/card-to-bank', {
      amount: 99_999,
      card_reference: reference,
      bank_id: 'B',
      bank_name: 'BICICI',
    })
    const wave = await s.call('POST', '/v1/transactions/create/card-to-wallet', {
      amount: 10,
      card_reference: reference,
      phone: '+221770000000',
      network: 'wave-sn',
    })
    await advance(s, '1s')
    expect((await transaction(s, wave.body.data.transaction.slug)).status).toBe('failed')
    await advance(s, '4s')
    expect((await transaction(s, big.body.data.transaction.slug)).status).toBe('failed')
    expect((await transaction(s, small.body.data.transaction.slug)).status).toBe('success')
    expect((await s.call('GET', '/v1/cards')).body.data[0].balance).toBe(before - 99_999)
  })

  it('payment-expiry: an orange-money-ci payment expires after 1 minute, others wait', async () => {
    const s = withScenario('payment-expiry')
    const customer = { full_name: 'Fatou Sall', phone: '+2250700000000' }
    const ci = (
      await s.call('POST', '/v1/payments/create', {
        amount: 100,
        network: 'orange-money-ci',
        customer,
      })
    ).body.data.payment.reference
    const sn = (
      await s.call('POST', '/v1/payments/create', {
        amount: 100,
        network: 'orange-money-sn',
        customer,
      })
    ).body.data.payment.reference
    await advance(s, '1m')
    expect((await s.call('GET', `/v1/payments/${ci}`)).body.data.status).toBe('expired')
    expect((await s.call('GET', `/v1/payments/${sn}`)).body.data.status).toBe('pending')
  })

  it('flaky-network: three 503s with Retry-After, then recovery', async () => {
    const s = withScenario('flaky-network')
    const { reference } = await s.fundedCard()
    const body = {
      amount: 10,
      card_reference: reference,
      phone: '+221770000000',
      network: 'mtn-ci',
    }
    const statuses = []
    for (let i = 0; i < 5; i++) {
      const res = await s.call('POST', '/v1/transactions/create/card-to-wallet', body)
      statuses.push(res.status)
      if (res.status === 503) {
        expect(res.headers.get('Retry-After')).toBe('1')
        expect(res.body).toEqual({ message: 'Service Unavailable', statusCode: 503 })
      }
    }
    expect(statuses).toEqual([503, 503, 503, 200, 200])
    // the 503s changed nothing: only the two accepted transfers exist besides the funding
    const kinds = (
      await s.call('GET', `/v1/transactions?card_reference=${reference}`)
    ).body.data.transaction.map((t: any) => t.kind)
    expect(kinds.filter((k: string) => k === 'card_to_wallet')).toHaveLength(2)
  })

  it('slow-network: adds latency to the matched calls only', async () => {
    const s = withScenario('slow-network')
    const started = Date.now()
    const list = await s.call('GET', '/v1/cards')
    expect(list.headers.get('x-card-sandbox-scenario')).toBe('slow-network/slow lists')
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
    const user = await s.call('POST', '/v1/card-users/create', { phone: '+221770000000' })
    expect(user.headers.get('x-card-sandbox-scenario')).toBeNull()
  })

  it('slow-network: names the matched rule on an answer the route refused, and is not reached by a 405', async () => {
    const s = withScenario('slow-network')
    const refused = await s.call('GET', '/v1/cards?per_page=0')
    expect(refused.status).toBe(422)
    expect(refused.headers.get('x-card-sandbox-scenario')).toBe('slow-network/slow lists')
    // a literal path asked with a method it does not have is refused before the scenarios
    const wrongMethod = await s.call('GET', '/v1/cards/create')
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get('x-card-sandbox-scenario')).toBeNull()
  })

  it('rate-limited: the 4th and 5th payment creations get a 429 with Retry-After, per tenant', async () => {
    const s = withScenario('rate-limited')
    const body = {
      amount: 100,
      network: 'wave-sn',
      customer: { full_name: 'A B', phone: '+221770000000' },
    }
    const statuses = []
    for (let i = 0; i < 6; i++) {
      const res = await s.call('POST', '/v1/payments/create', body)
      statuses.push(res.status)
      if (res.status === 429) expect(res.headers.get('Retry-After')).toBe('30')
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429, 200])
    // another tenant counts its own calls
    const other = await s.call('POST', '/v1/payments/create', body, { token: 'other' })
    expect(other.status).toBe(200)
    expect((await s.call('GET', '/v1/payments')).body.meta.total).toBe(4)
  })
})

describe('rules', () => {
  it('drops the connection over a real socket', async () => {
    const dir = tempDir()
    const file = join(dir, 'drop.yaml')
    writeFileSync(
      file,
      'name: drop\nrules:\n  - match: { method: GET, path: /v1/cards }\n    drop: true\n',
    )
    const sandbox = await startSandbox({ port: 0, scenarios: [file] })
    cleanups.push(() => sandbox.close())
    await expect(
      fetch(`${sandbox.baseUrl}/cards`, { headers: { Authorization: 'Bearer t' } }),
    ).rejects.toThrow()
    const other = await fetch(`${sandbox.baseUrl}/payments`, {
      headers: { Authorization: 'Bearer t' },
    })
    expect(other.status).toBe(200)
  })

  it('applies a posted scenario to the posting tenant only, until its reset', async () => {
    const s = newSandbox()
    const posted = await s.call('POST', '/__sandbox/scenarios', {
      name: 'teapot',
      rules: [
        {
          match: { method: 'GET', path: '/v1/cards', tenant: 'test-token' },
          respond: { status: 418, body: { message: 'short and stout' } },
        },
      ],
    })
    expect(posted.status, JSON.stringify(posted.body)).toBe(200)
    expect((await s.call('GET', '/__sandbox/scenarios')).body.data).toEqual([
      { name: 'teapot', source: 'tenant', description: null, delays: {}, rules: 1 },
    ])
    expect((await s.call('GET', '/v1/cards')).status).toBe(418)
    expect((await s.call('GET', '/v1/cards', undefined, { token: 'other' })).status).toBe(200)
    await s.call('POST', '/__sandbox/reset')
    expect((await s.call('GET', '/v1/cards')).status).toBe(200)
    expect((await s.call('GET', '/__sandbox/scenarios')).body.data).toEqual([])
  })

  it('removes one posted scenario, leaving the others and the tenant as they are', async () => {
    const s = newSandbox()
    const teapot = (name: string, path: string) => ({
      name,
      rules: [{ match: { method: 'GET', path }, respond: { status: 418 } }],
    })
    await s.call('POST', '/__sandbox/scenarios', teapot('cards', '/v1/cards'))
    await s.call('POST', '/__sandbox/scenarios', teapot('payments', '/v1/payments'))
    await s.call('POST', '/v1/card-users/create', { phone: '+221770000001' })
    const unknown = await s.call('DELETE', '/__sandbox/scenarios/nope')
    expect(unknown.body.message).toBe(
      'No scenario named nope is in force for this tenant (in force: cards, payments).',
    )
    const removed = await s.call('DELETE', '/__sandbox/scenarios/cards')
    expect(removed.status).toBe(200)
    expect(removed.body.data.map((x: any) => x.name)).toEqual(['payments'])
    expect((await s.call('GET', '/v1/cards')).status).toBe(200)
    expect((await s.call('GET', '/v1/payments')).status).toBe(418)
    expect((await s.call('GET', '/v1/card-users')).body.data[0].data).toHaveLength(1)
    const again = await s.call('DELETE', '/__sandbox/scenarios/cards')
    expect(again.status).toBe(404)
    expect(again.body.message).toBe(
      'No scenario named cards is in force for this tenant (in force: payments).',
    )
    expect((await s.call('DELETE', '/__sandbox/scenarios/payments')).status).toBe(200)
    expect((await s.call('DELETE', '/__sandbox/scenarios/payments')).body.message).toBe(
      'No scenario named payments is in force for this tenant (none is).',
    )
  })

  it("refuses to remove a file's scenario with a 409 saying to edit the file", async () => {
    const dir = tempDir()
    const file = join(dir, 'teapot.yaml')
    writeFileSync(
      file,
      'name: teapot\nrules:\n  - match: { method: GET, path: /v1/cards }\n    respond: { status: 418 }\n',
    )
    const s = newSandbox({ scenarios: [file] })
    cleanups.push(() => s.close())
    const refused = await s.call('DELETE', '/__sandbox/scenarios/teapot')
    expect(refused.status).toBe(409)
    expect(refused.body.message).toMatch(/--scenario file.*edit or remove the file/)
    expect((await s.call('GET', '/v1/cards')).status).toBe(418)
  })

  it('refuses a rule whose path can never match, with a hint', async () => {
    const s = newSandbox()
    const cases: [string, RegExp][] = [
      [
        '/cards/create',
        /scenarios apply to \/v1 requests only \(did you mean \/v1\/cards\/create\?\)/,
      ],
      ['/__sandbox/clock', /not to the control plane/],
    ]
    for (const [path, hint] of cases) {
      const res = await s.call('POST', '/__sandbox/scenarios', {
        name: 'x',
        rules: [{ match: { method: 'POST', path }, respond: { status: 500 } }],
      })
      expect(res.status).toBe(422)
      expect(res.body.errors['rules.0.match.path'][0]).toMatch(hint)
    }
    for (const path of ['/v1/cards/:reference', '/*', '/:anything/cards']) {
      const res = await s.call('POST', '/__sandbox/scenarios', {
        name: 'ok',
        rules: [{ match: { method: 'GET', path }, respond: { status: 418 } }],
      })
      expect(res.status, path).toBe(200)
    }
  })

  it('matches body fields by range, pattern and list, and lets a rule continue to the next', async () => {
    const s = newSandbox()
    await s.call('POST', '/__sandbox/scenarios', {
      name: 'combo',
      rules: [
        {
          name: 'slow big ones',
          match: { path: '/v1/payments/create', body: { amount: { gt: 1000, lte: 5000 } } },
          latency: 1,
          continue: true,
        },
        {
          name: 'senegal',
          match: {
            body: {
              'customer.phone': { pattern: '^\\+221' },
              network: { in: ['wave-sn', 'orange-money-sn'] },
            },
          },
          respond: { status: 402 },
        },
      ],
    })
    const pay = (amount: number, phone: string, network = 'wave-sn') =>
      s.call('POST', '/v1/payments/create', {
        amount,
        network,
        customer: { full_name: 'A B', phone },
      })
    const both = await pay(2000, '+221770000000')
    expect(both.status).toBe(402)
    expect(both.headers.get('x-card-sandbox-scenario')).toBe('combo/slow big ones, combo/senegal')
    expect(both.body).toEqual({ message: 'Error', statusCode: 402 })
    expect((await pay(2000, '+2250700000000')).status).toBe(200)
    expect(
      (await pay(6000, '+2250700000000', 'mtn-ci')).headers.get('x-card-sandbox-scenario'),
    ).toBeNull()
    // a senegalese phone on a network outside the list: only the range rule matches
    const outsideList = await pay(2000, '+221770000000', 'mtn-ci')
    expect(outsideList.status).toBe(200)
    expect(outsideList.headers.get('x-card-sandbox-scenario')).toBe('combo/slow big ones')
    // gt is exclusive and lte inclusive: 1000 and 5001 are out, 1001 and 5000 in
    const matchedAt = async (amount: number) =>
      (await pay(amount, '+2250700000000')).headers.get('x-card-sandbox-scenario')
    expect(await matchedAt(1000)).toBeNull()
    expect(await matchedAt(1001)).toBe('combo/slow big ones')
    expect(await matchedAt(5000)).toBe('combo/slow big ones')
    expect(await matchedAt(5001)).toBeNull()
  })

  it('applies a rule to the share of calls its rate says (0 never, 1 always, 0.5 some)', async () => {
    const s = newSandbox()
    await s.call('POST', '/__sandbox/scenarios', {
      name: 'rates',
      rules: [
        { match: { method: 'GET', path: '/v1/cards', rate: 0 }, respond: { status: 500 } },
        { match: { method: 'GET', path: '/v1/payments', rate: 1 }, respond: { status: 503 } },
        { match: { method: 'GET', path: '/v1/disburses', rate: 0.5 }, respond: { status: 503 } },
      ],
    })
    const statuses = async (path: string) => {
      const seen = []
      for (let i = 0; i < 40; i++) seen.push((await s.call('GET', path)).status)
      return seen
    }
    expect(new Set(await statuses('/v1/cards'))).toEqual(new Set([200]))
    expect(new Set(await statuses('/v1/payments'))).toEqual(new Set([503]))
    expect(new Set(await statuses('/v1/disburses'))).toEqual(new Set([200, 503]))
  })

  it('refuses a malformed posted scenario with 422 naming every bad field', async () => {
    const s = newSandbox()
    const res = await s.call('POST', '/__sandbox/scenarios', {
      name: '',
      rules: [
        {
          match: { method: 'FETCH', nth: 0 },
          respond: { status: 99 },
          latency: 'soon',
          sparkle: true,
        },
      ],
    })
    expect(res.status).toBe(422)
    expect(Object.keys(res.body.errors).sort()).toEqual([
      'name',
      'rules.0.latency',
      'rules.0.match.method',
      'rules.0.match.nth',
      'rules.0.respond.status',
      'rules.0.sparkle',
    ])
  })
})

describe('scenario files', () => {
  function tempFile(name: string, text: string) {
    const dir = tempDir()
    const file = join(dir, name)
    writeFileSync(file, text)
    return file
  }

  it('names the file, the line and the field of a bad value', () => {
    const file = tempFile(
      'bad.yaml',
      'name: bad\nrules:\n  - match:\n      method: POST\n    respond:\n      status: "teapot"\n',
    )
    expect(() => loadScenarioFile(file)).toThrow(ScenarioError)
    expect(() => loadScenarioFile(file)).toThrow(`${file}:6: rules.0.respond.status:`)
  })

  it('names the line of a YAML syntax error and of an unknown field, in JSON too', () => {
    expect(() => parseScenario('name: x\nrules: [\n', 'broken.yaml')).toThrow(/^broken\.yaml:\d+: /)
    expect(() => parseScenario('{\n  "name": "x",\n  "rulez": []\n}', 'typo.json')).toThrow(
      'typo.json:3: rulez: unknown field',
    )
  })

  it("reports a .json file's syntax error in JSON's words, with its line and column", () => {
    const messageOf = (read: () => unknown) => {
      try {
        read()
      } catch (error) {
        expect(error).toBeInstanceOf(ScenarioError)
        return (error as Error).message
      }
      throw new Error('no error')
    }
    // a stray comma at line 4, column 6: YAML would call it a flow collection error
    const file = tempFile('broken.json', '{\n  "name": "x",\n  "rules": [\n    {,}\n  ]\n}\n')
    const broken = messageOf(() => loadScenarioFile(file))
    expect(broken).toMatch(/^.*: JSON syntax error at line 4, column 6: \S/)
    expect(broken.startsWith(`${file}: JSON syntax error at line 4, column 6: `)).toBe(true)
    expect(broken).not.toMatch(/flow|YAML|position/i)
    // a file cut short: where its text ends
    expect(messageOf(() => parseScenario('{\n  "name": "x",\n  "rules": [\n', 'cut.json'))).toBe(
      'cut.json: JSON syntax error at line 3, column 13: Unexpected end of JSON input',
    )
    // a byte order mark is not a column
    expect(messageOf(() => parseScenario('\uFEFF{"name" "x"}', 'bom.JSON'))).toMatch(
      /^bom\.JSON: JSON syntax error at line 1, column 9: \S/,
    )
    // YAML's errors stay YAML's
    expect(messageOf(() => parseScenario('name: x\nrules: [\n', 'broken.yaml'))).not.toContain(
      'JSON',
    )
  })

  it('refuses to start on a malformed file, with the precise error and no crash', () => {
    const file = tempFile('bad.yaml', 'name: bad\nrules:\n  - latency: forever\n')
    expect(() => newSandbox({ scenarios: [file] })).toThrow(`${file}:3: rules.0.latency:`)
  })

  it('picks up an edit without a restart, and keeps the last good version of a broken edit', async () => {
    const dir = tempDir()
    const file = join(dir, 'live.yaml')
    copyFileSync(example('rate-limited'), file)
    const s = newSandbox({ scenarios: [file] })
    cleanups.push(() => s.close())
    const answering = (status: number) =>
      `name: live\nrules:\n  - match: { method: GET, path: /v1/cards }\n    respond: { status: ${status} }\n`
    const answers = async (status: number) => {
      for (let i = 0; i < 250 && (await s.call('GET', '/v1/cards')).status !== status; i++)
        await new Promise((r) => setTimeout(r, 20))
      return (await s.call('GET', '/v1/cards')).status
    }
    writeFileSync(file, answering(418))
    expect(await answers(418)).toBe(418)
    expect((await s.call('GET', '/__sandbox/scenarios')).body.data[0].name).toBe('live')

    // still watched after that reload: a second edit in place, then an editor's atomic save
    // (a new file renamed over it), then an edit in place of the renamed file
    writeFileSync(file, answering(419))
    expect(await answers(419)).toBe(419)
    writeFileSync(`${file}.tmp`, answering(420))
    renameSync(`${file}.tmp`, file)
    expect(await answers(420)).toBe(420)
    writeFileSync(file, answering(421))
    expect(await answers(421)).toBe(421)

    writeFileSync(file, 'name: live\nrules:\n  - respond: { status: "broken" }\n')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect((await s.call('GET', '/v1/cards')).status).toBe(421)
  })

  it('takes a deleted file out of force, says so, keeps serving, and loads it again when it comes back', async () => {
    const dir = tempDir()
    const file = join(dir, 'live.yaml')
    const teapot =
      'name: live\nrules:\n  - match: { method: GET, path: /v1/cards }\n    respond: { status: 418 }\n'
    writeFileSync(file, teapot)
    // the console's lines (lib/logger.ts): a scenario file's are printed even with --log silent
    const log: string[] = []
    const s = newSandbox({ scenarios: [file], logWrite: (line) => log.push(line) })
    cleanups.push(() => s.close())
    const status = async () => (await s.call('GET', '/v1/cards')).status
    expect(await status()).toBe(418)

    // deleted: the scenario is out of force, the log says so, the sandbox still answers
    unlinkSync(file)
    await until(() => log.some((line) => line.includes(`${file} was deleted`)), 5_000, 'the log')
    expect(log.join('')).toContain(`scenario file ${file} was deleted: live is out of force`)
    expect(await status()).toBe(200)
    expect((await s.call('GET', '/__sandbox/scenarios')).body.data).toEqual([])

    // back (with another answer): loaded again and watched as before
    writeFileSync(file, teapot.replace('418', '503'))
    await until(() => log.some((line) => line.includes(`loaded scenario ${file}`)), 5_000, 'reload')
    expect(await status()).toBe(503)
    writeFileSync(file, teapot)
    for (let i = 0; i < 250 && (await status()) !== 418; i++)
      await new Promise((r) => setTimeout(r, 20))
    expect(await status()).toBe(418)
  })
})

describe('magic values (no scenario file)', () => {
  it('fails verification for a phone ending in 0404', async () => {
    const s = newSandbox()
    const full = (
      await s.call('POST', '/v1/card-users/create', fullIdentity({ phone: '+221770000404' }))
    ).body.data.userCard.reference
    const widget = (await s.call('POST', '/v1/card-users/create', { phone: '+225070000404' })).body
      .userCard.reference
    await advance(s, '3s')
    expect(await userStatus(s, full)).toBe('failed')
    expect(await userStatus(s, widget)).toBe('failed')
  })

  it('fails card issuing for a card user whose phone ends in 0500', async () => {
    const s = newSandbox()
    const user = (await s.call('POST', '/v1/card-users/create', { phone: '+221770000500' })).body
      .userCard.reference
    await s.call('POST', `/__sandbox/card-users/${user}/transition`, { to: 'passed' })
    await s.call('POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    await advance(s, '5s')
    expect((await s.call('GET', '/v1/cards')).body.data[0].status).toBe('failed')
  })

  it('fails a transfer or a disburse of 4004, and decides payments of 4004, 4008 and 2002', async () => {
    const s = newSandbox()
    const { reference } = await s.fundedCard()
    const t = await s.call('POST', '/v1/transactions/create/card-to-bank', {
      amount: 4004,
      card_reference: reference,
      bank_id: 'B',
      bank_name: 'BICICI',
    })
    const d = await s.call('POST', '/v1/disburses/create', {
      amount: 4004,
      network: 'wave-sn',
      customer: { full_name: 'A B', phone: '+221770000000' },
    })
    const customer = { full_name: 'A B', phone: '+221770000000' }
    const pay = async (amount: number) =>
      (await s.call('POST', '/v1/payments/create', { amount, network: 'wave-sn', customer })).body
        .data.payment.reference
    const [failed, expired, paid] = [await pay(4004), await pay(4008), await pay(2002)]
    await advance(s, '5s')
    expect((await transaction(s, t.body.data.transaction.slug)).status).toBe('failed')
    expect(
      (await s.call('GET', `/v1/disburses/${d.body.data.disburse.reference}`)).body.data.status,
    ).toBe('failed')
    for (const [ref, status] of [
      [failed, 'failed'],
      [expired, 'expired'],
      [paid, 'success'],
    ]) {
      expect((await s.call('GET', `/v1/payments/${ref}`)).body.data.status).toBe(status)
    }
  })
})
