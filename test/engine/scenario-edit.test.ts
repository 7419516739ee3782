/**
 * A scenario rule's `edit` effect: the handler's JSON answer changed after it ran (keys added,
 * dropped, renamed, retyped; the status and the envelope's message), while the resource is
 * created and served as the sandbox makes it.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest'
import type { z } from 'zod'
import type { ScenarioRule } from '../../src/clients/client.js'
import type { editSchema } from '../../src/engine/scenarios/edit.js'
import { loadScenarioFile, parseScenario, ScenarioError } from '../../src/engine/scenarios/load.js'
import { startSandbox } from '../../src/index.js'
import { fullIdentity, newSandbox, UUID } from '../helpers.js'
import { tempDir } from '../temp-dir.js'

type Sandbox = ReturnType<typeof newSandbox>
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function scenarioFile(text: string): string {
  const file = join(tempDir(), 'edit.yaml')
  writeFileSync(file, text)
  return file
}

function sandboxWith(text?: string): Sandbox {
  const s = newSandbox(text === undefined ? {} : { scenarios: [scenarioFile(text)] })
  cleanups.push(() => s.close())
  return s
}

const createCard = (s: Sandbox, user: string) =>
  s.call('POST', '/v1/cards/create', {
    card_user_reference: user,
    card_brand: 'visa',
    card_type: 'virtual',
  })

const CREATE_EDITED = `name: pinned
rules:
  - name: card create as upstream
    match: { method: POST, path: /v1/cards/create }
    edit:
      add: { $.data.card.extra: 1 }
      drop: [$.data.card.cvv2]
      rename: { $.data.card.status: state }
      retype: { $.data.card.balance: string }
      status: 201
      message: Card created
`

describe('the edit effect', () => {
  it('edits the create answer, while the card is created and read back as the sandbox makes it', async () => {
    const s = sandboxWith(CREATE_EDITED)
    const user = await s.verifiedUser()
    const created = await createCard(s, user)
    expect(created.status).toBe(201)
    expect(created.headers.get('x-card-sandbox-scenario')).toBe('pinned/card create as upstream')
    // the handler's own headers stay
    expect(created.headers.get('content-type')).toBe('application/json')
    expect(created.headers.get('x-ratelimit-limit')).toBe('60')
    const card = created.body.data.card
    expect(card.reference).toMatch(UUID)
    expect(created.body).toEqual({
      message: 'Card created',
      statusCode: 201,
      data: {
        card: {
          reference: card.reference,
          card_number: null,
          card_brand: 'Visa',
          card_type: 'virtual',
          expiry: null,
          balance: '0',
          state: 'issuing',
          extra: 1,
        },
      },
    })
    // renamed in place: `state` sits where `status` was, before the added key
    expect(Object.keys(card)).toEqual([
      'reference',
      'card_number',
      'card_brand',
      'card_type',
      'expiry',
      'balance',
      'state',
      'extra',
    ])

    const shown = await s.call('GET', `/v1/cards/${card.reference}`)
    expect(shown.status).toBe(200)
    expect(shown.body.data.card).toMatchObject({
      reference: card.reference,
      status: 'issuing',
      cvv2: null,
      balance: 0,
    })
    expect(shown.body.data.card.extra).toBeUndefined()
    const listed = await s.call('GET', '/v1/cards')
    expect(listed.status).toBe(200)
    expect(listed.body.data.map((c: { reference: string }) => c.reference)).toEqual([
      card.reference,
    ])
    // the card moves on with the sandbox's own reference
    await s.call('POST', `/__sandbox/cards/${card.reference}/transition`, { to: 'issued' })
    expect((await s.call('GET', `/v1/cards/${card.reference}`)).body.data.card.status).toBe(
      'issued',
    )
  })

  it('over real HTTP: the edited bytes, their length, the headers', async () => {
    const sandbox = await startSandbox({ port: 0, scenarios: [scenarioFile(CREATE_EDITED)] })
    cleanups.push(() => sandbox.close())
    const call = (path: string, body: unknown) =>
      fetch(new URL(path, sandbox.baseUrl), {
        method: 'POST',
        headers: { Authorization: 'Bearer http-edit', 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
    const created = (await (await call('/v1/card-users/create', fullIdentity())).json()) as {
      data: { userCard: { reference: string } }
    }
    const user = created.data.userCard.reference
    await call(`/__sandbox/card-users/${user}/transition`, { to: 'passed' })
    const res = await call('/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    const text = await res.text()
    expect(res.status).toBe(201)
    expect(res.headers.get('x-card-sandbox-scenario')).toBe('pinned/card create as upstream')
    expect(res.headers.get('content-type')).toBe('application/json')
    const length = res.headers.get('content-length')
    if (length !== null) expect(Number(length)).toBe(Buffer.byteLength(text))
    expect(JSON.parse(text)).toMatchObject({
      message: 'Card created',
      statusCode: 201,
      data: { card: { state: 'issuing', balance: '0', extra: 1 } },
    })
  })

  it("keeps the request journal's copy of the answer as it was sent", async () => {
    const s = sandboxWith(CREATE_EDITED)
    const created = await createCard(s, await s.verifiedUser())
    const log = await s.call('GET', '/__sandbox/requests?per_page=5')
    const entry = JSON.stringify(log.body).includes('Card created')
    expect(created.status).toBe(201)
    expect(entry).toBe(true)
  })

  it('leaves an error answer as the handler made it', async () => {
    const s = sandboxWith(CREATE_EDITED)
    const refused = await s.call('POST', '/v1/cards/create', { card_brand: 'visa' })
    expect(refused.status).toBe(422)
    expect(refused.body.message).not.toBe('Card created')
    expect(refused.body.data?.card).toBeUndefined()
  })

  it("edits a canned answer too, when an earlier rule's respond continues to it", async () => {
    const s = sandboxWith(`name: canned
rules:
  - match: { method: GET, path: /v1/cards }
    respond: { status: 200, body: { message: OK, statusCode: 200, data: [{ id: 7 }] } }
    continue: true
  - match: { method: GET, path: /v1/cards, nth: 1 }
    edit: { retype: { '$.data[*].id': string }, message: Cards fetched }
`)
    const answer = await s.call('GET', '/v1/cards')
    expect(answer.status).toBe(200)
    expect(answer.body).toEqual({ message: 'Cards fetched', statusCode: 200, data: [{ id: '7' }] })
    expect(answer.headers.get('x-card-sandbox-scenario')).toBe('canned/rule 1, canned/rule 2')
    // the edit changed that answer, not the scenario's body: the next call has it as written
    const next = await s.call('GET', '/v1/cards')
    expect(next.body).toEqual({ message: 'OK', statusCode: 200, data: [{ id: 7 }] })
  })

  it('edits every element of a list of two or more with [*], within a path or at its end', async () => {
    const s = sandboxWith(`name: canned
rules:
  - match: { method: GET, path: /v1/cards }
    respond:
      status: 200
      body: { data: [{ id: 1, x: 0 }, { id: 2, x: 0 }, { id: 3, x: 0 }], codes: ['10', '20', '30'] }
    continue: true
  - match: { method: GET, path: /v1/cards }
    edit:
      drop: ['$.data[*].x']
      retype: { '$.data[*].id': string, '$.codes[*]': number }
      add: { '$.data[*].pinned': true }
`)
    const answer = await s.call('GET', '/v1/cards')
    expect(answer.body).toEqual({
      data: [
        { id: '1', pinned: true },
        { id: '2', pinned: true },
        { id: '3', pinned: true },
      ],
      codes: [10, 20, 30],
    })
  })

  it('retypes "false", "0" and "" to false, other text ("true") to true', async () => {
    const s = sandboxWith(`name: canned
rules:
  - match: { method: GET, path: /v1/cards }
    respond: { status: 200, body: { no: 'false', zero: '0', empty: '', yes: 'true' } }
    continue: true
  - match: { method: GET, path: /v1/cards }
    edit: { retype: { $.no: boolean, $.zero: boolean, $.empty: boolean, $.yes: boolean } }
`)
    const answer = await s.call('GET', '/v1/cards')
    expect(answer.body).toEqual({ no: false, zero: false, empty: false, yes: true })
  })

  describe('each kind, on a card as GET /v1/cards/:reference shows it', () => {
    let s: Sandbox
    let reference: string
    let plain: any

    async function edited(edit: Record<string, unknown>, path = '/v1/cards/:reference') {
      s = sandboxWith()
      reference = (await createCard(s, await s.verifiedUser())).body.data.card.reference
      const url = path === '/v1/cards' ? path : `/v1/cards/${reference}`
      plain = (await s.call('GET', url)).body
      const posted = await s.call('POST', '/__sandbox/scenarios', {
        name: 'one-edit',
        rules: [{ match: { method: 'GET', path }, edit }],
      })
      expect(posted.status).toBe(200)
      const answer = await s.call('GET', url)
      expect(answer.headers.get('x-card-sandbox-scenario')).toBe('one-edit/rule 1')
      return answer
    }

    it('add: a new key, and another value for a key that is there', async () => {
      const answer = await edited({
        add: { '$.data.card.nickname': 'travel', '$.data.card.status': 'pendin' },
      })
      expect(answer.body.data.card).toEqual({
        ...plain.data.card,
        status: 'pendin',
        nickname: 'travel',
      })
    })

    it('add: objects on the way are made', async () => {
      const answer = await edited({ add: { '$.data.meta.source': 'upstream' } })
      expect(answer.body.data).toEqual({ ...plain.data, meta: { source: 'upstream' } })
    })

    it('drop', async () => {
      const answer = await edited({ drop: ['$.data.card.expiry'] })
      const { expiry, ...rest } = plain.data.card
      expect(expiry).toBeNull()
      expect(answer.body.data.card).toEqual(rest)
      expect('expiry' in answer.body.data.card).toBe(false)
    })

    it('rename, in place', async () => {
      const answer = await edited({ rename: { '$.data.card.card_brand': 'brand' } })
      expect(Object.keys(answer.body.data.card)).toEqual(
        Object.keys(plain.data.card).map((k) => (k === 'card_brand' ? 'brand' : k)),
      )
      expect(answer.body.data.card.brand).toBe('Visa')
    })

    it('retype: number to string, string to number, to null, to an array', async () => {
      const answer = await edited({
        retype: {
          '$.data.card.balance': 'string',
          '$.data.statusCode': 'string',
          '$.data.card.card_type': 'array',
          '$.data.card.card_brand': 'null',
        },
      })
      expect(answer.body.data.card.balance).toBe('0')
      expect(answer.body.data.card.card_type).toEqual(['virtual'])
      expect(answer.body.data.card.card_brand).toBeNull()
      // a path that names nothing changes nothing
      expect(answer.body.data.statusCode).toBeUndefined()
      expect(answer.body.statusCode).toBe(200)
      const back = await edited({ retype: { '$.statusCode': 'string' } })
      expect(back.body.statusCode).toBe('200')
    })

    it('every element of a list with [*], one with [n]', async () => {
      const answer = await edited(
        { retype: { '$.data[*].balance': 'string' }, add: { '$.data[0].pinned': true } },
        '/v1/cards',
      )
      expect(plain.data[0].balance).toBe(0)
      expect(answer.body.data).toEqual([{ ...plain.data[0], balance: '0', pinned: true }])
      expect(answer.body.meta).toEqual(plain.meta)
    })

    it("copy: a key set to another key's value, read after the renames", async () => {
      const answer = await edited({
        rename: { '$.data.card.reference': 'ref' },
        copy: { '$.data.card.id': '$.data.card.ref', '$.data.card.none': '$.data.card.nothing' },
      })
      const card = answer.body.data.card
      expect(card.ref).toBe(reference)
      expect(card.id).toBe(reference)
      // after the keys that were there; a source that names nothing sets nothing
      expect(Object.keys(card).slice(-1)).toEqual(['id'])
      expect('none' in card).toBe(false)
    })

    it('copy with [*]: each element from its own, or every element from one place', async () => {
      await edited({ copy: { '$.data[*].id': '$.data[*].reference' } }, '/v1/cards')
      const second = await createCard(s, await s.verifiedUser())
      expect(second.status).toBe(200)
      await s.call('POST', '/__sandbox/scenarios', {
        name: 'one-edit',
        rules: [
          {
            match: { method: 'GET', path: '/v1/cards' },
            edit: {
              copy: { '$.data[*].id': '$.data[*].reference', '$.data[*].page': '$.meta.total' },
            },
          },
        ],
      })
      const listed = await s.call('GET', '/v1/cards')
      expect(listed.body.data).toHaveLength(2)
      for (const card of listed.body.data) {
        expect(card.id).toBe(card.reference)
        expect(card.page).toBe(2)
      }
      expect(listed.body.data[0].id).not.toBe(listed.body.data[1].id)
    })

    it('status and message: the HTTP status, the envelope statusCode and message', async () => {
      const answer = await edited({ status: 202, message: 'Card fetched' })
      expect(answer.status).toBe(202)
      expect(answer.body).toEqual({ ...plain, statusCode: 202, message: 'Card fetched' })
    })
  })

  describe('a bad edit is refused with the file, line and field', () => {
    const messageOf = (text: string) => {
      const file = scenarioFile(text)
      try {
        loadScenarioFile(file)
      } catch (error) {
        expect(error).toBeInstanceOf(ScenarioError)
        return (error as Error).message.replace(file, 'FILE')
      }
      throw new Error('no error')
    }
    const rule = (edit: string) =>
      `name: bad\nrules:\n  - match: { method: GET }\n    edit:\n${edit}\n`

    it('a path that is not a JSON path', () => {
      expect(messageOf(rule('      drop: [data.card.cvv2]'))).toBe(
        "FILE:5: rules.0.edit.drop.0: expected a JSON path from the answer's top, such as $.data.card.status",
      )
    })

    it('a path that ends with an index where a key is needed, or reads badly', () => {
      expect(messageOf(rule('      rename: { "$.data[0]": x }'))).toMatch(
        /^FILE:5: rules\.0\.edit\.rename\.\$\.data\[0\]: \$\.data\[0\] must end with a key/,
      )
      expect(messageOf(rule('      retype: { "$.data..x": string }'))).toMatch(
        /^FILE:5: rules\.0\.edit\.retype\.\$\.data\.\.x: cannot read "\.\.x" in \$\.data\.\.x/,
      )
    })

    it('an unknown type, an unknown field, an empty edit, a status out of range', () => {
      expect(messageOf(rule('      retype: { $.data.x: integer }'))).toMatch(
        /^FILE:5: rules\.0\.edit\.retype\.\$\.data\.x: .*"string"/,
      )
      expect(messageOf(rule('      rename: { $.a: b }\n      renmae: { $.a: b }'))).toBe(
        'FILE:6: rules.0.edit.renmae: unknown field',
      )
      expect(messageOf(rule('      {}'))).toMatch(
        /^FILE:5: rules\.0\.edit: expected at least one of add, copy, drop, rename, retype, status, message/,
      )
      expect(messageOf(rule('      status: 99'))).toMatch(/^FILE:5: rules\.0\.edit\.status: /)
    })

    it("a copy whose source is not a path, or has a [*] the target's element cannot give", () => {
      expect(messageOf(rule('      copy: { $.data.id: data.reference }'))).toBe(
        "FILE:5: rules.0.edit.copy.$.data.id: expected a JSON path from the answer's top, such as $.data.card.status",
      )
      expect(messageOf(rule('      copy: { $.data.id: "$.data[*].reference" }'))).toBe(
        "FILE:5: rules.0.edit.copy.$.data.id: $.data[*].reference has more [*] than $.data.id: each [*] of the source takes the element of the target's",
      )
      expect(messageOf(rule('      copy: { "$.data[0]": $.data.reference }'))).toMatch(
        /^FILE:5: rules\.0\.edit\.copy\.\$\.data\[0\]: \$\.data\[0\] must end with a key/,
      )
    })

    it('posted at run time: a 422 naming the field, never a 500', async () => {
      const s = sandboxWith()
      const answer = await s.call('POST', '/__sandbox/scenarios', {
        name: 'bad',
        rules: [{ match: { method: 'GET' }, edit: { drop: ['cvv2'] } }],
      })
      expect(answer.status).toBe(422)
      expect(JSON.stringify(answer.body)).toContain('rules.0.edit.drop.0')
      expect(JSON.stringify(answer.body)).toContain('expected a JSON path')
    })

    it("the kit's ScenarioRule types the edit as the schema reads it", () => {
      expectTypeOf<NonNullable<ScenarioRule['edit']>>().toEqualTypeOf<z.input<typeof editSchema>>()
    })

    it('a good edit parses to what the rule says', () => {
      const scenario = parseScenario(CREATE_EDITED, 'pinned.yaml')
      expect(scenario.rules[0].edit).toEqual({
        add: { '$.data.card.extra': 1 },
        drop: ['$.data.card.cvv2'],
        rename: { '$.data.card.status': 'state' },
        retype: { '$.data.card.balance': 'string' },
        status: 201,
        message: 'Card created',
      })
    })
  })
})
