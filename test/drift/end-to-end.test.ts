/**
 * Drift end to end, over real HTTP: the recording proxy (startProxy, recording to a file) in
 * front of a stand-in for the real service (stand-in.ts's startStandIn: a server forwarding to a
 * sandbox and passing its answers through the table of planted edits). The flow runs through the
 * proxy; the report of the record file is the table's findings, nothing more, and the upstream
 * received `/v1/<rest>` (the proxy's upstream base URL includes `/v1`: no doubled `/v1`).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { scenarioFromReport } from '../../src/drift/pin.js'
import type { RecordLine } from '../../src/drift/report.js'
import { compareRecording, startProxy } from '../../src/index.js'
import { fullIdentity, newSandbox, UUID } from '../helpers.js'
import { tempDir } from '../temp-dir.js'
import {
  controlOf,
  EDITS,
  countsOf,
  flow,
  PLANTED_COUNTS,
  sender,
  startStandIn,
  TOKEN,
  type Edit,
  type FlowTarget,
  type StandIn,
} from './stand-in.js'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A stand-in and the proxy in front of it, recording to a fresh file. */
async function proxied(edits: Edit[] = EDITS, maskPersonal = false) {
  const standIn = await startStandIn(edits)
  cleanups.push(() => standIn.close())
  const file = join(tempDir(), 'drift.jsonl')
  const proxy = await startProxy({
    upstream: `${standIn.url}/v1`,
    port: 0,
    record: file,
    maskPersonal,
  })
  cleanups.push(() => proxy.close())
  const read = (): RecordLine[] =>
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as RecordLine)
  return { standIn, proxy, file, read }
}

/** The flow's /v1 calls through the proxy; its control calls on the stand-in's sandbox itself. */
function through(proxyUrl: string, standIn: StandIn): FlowTarget {
  const send = sender(proxyUrl)
  const control = controlOf(standIn.sandbox.url)
  return {
    control,
    advance: (ms) => control('POST', '/clock/advance', { by: ms }),
    async call(_route, method, path, body) {
      return (await send(method, path, body)).body
    },
  }
}

describe('drift end to end: the proxy in front of a stand-in upstream', () => {
  it('reports exactly the planted edits from the record file, and the upstream gets /v1/<rest>', async () => {
    const { standIn, proxy, read } = await proxied()
    await flow(through(proxy.url, standIn))

    const lines = read()
    const v1 = standIn.received.filter((r) => r.path.startsWith('/v1/'))
    expect(lines.map((l) => `${l.method} ${l.path}`)).toEqual(
      v1.map((r) => `${r.method} ${r.path}`),
    )
    expect(lines).toHaveLength(16)

    // the findings of each line are those its planted edits must give, nothing more
    expect(lines.map((line) => line.findings)).toEqual(standIn.expected)
    const report = compareRecording(lines)
    const planted = compareRecording(
      lines.map((line, i) => ({ ...line, findings: standIn.expected[i] })),
    )
    expect(report).toEqual(planted)
    expect(report.findings).toBe(14)
    expect(countsOf(report)).toEqual(PLANTED_COUNTS)

    // the upstream sandbox's journal: each path once under /v1, never /v1/v1
    const journal = await sender(standIn.sandbox.url)('GET', '/__sandbox/requests?per_page=100')
    expect(journal.status).toBe(200)
    const paths: string[] = journal.body.data
      .map((r: { method: string; path: string }) => `${r.method} ${r.path}`)
      .filter((p: string) => !p.includes(' /__sandbox/'))
      .reverse()
    expect(paths).toEqual(lines.map((l) => `${l.method} ${l.path}`))
    expect(paths.every((p) => / \/v1\/(?!v1\/)/.test(p))).toBe(true)
    expect(paths).toContain('POST /v1/cards/create')
  })

  it('reports a type drift on a masked key (cvv2 sent as a number) while the file holds no cvv2', async () => {
    const cvv2AsNumber: Edit = {
      route: 'GET /v1/cards/{reference}',
      edit: (a) => void (a.body.data.card.cvv2 = Number(a.body.data.card.cvv2)),
      findings: () => [],
    }
    const { standIn, proxy, file, read } = await proxied([cvv2AsNumber])
    const send = sender(proxy.url)
    const control = controlOf(standIn.sandbox.url)
    const user = (await send('POST', '/v1/card-users/create', fullIdentity())).body.data.userCard
      .reference
    await control('POST', '/clock/advance', { by: 4_000 })
    const created = await send('POST', '/v1/cards/create', {
      card_user_reference: user,
      card_brand: 'visa',
      card_type: 'virtual',
    })
    const card = created.body.data.card.reference
    await control('POST', '/clock/advance', { by: 6_000 })
    const shown = await send('GET', `/v1/cards/${card}`)
    // the team's client got the raw answer: a number, the card's real cvv2
    const cvv2: number = shown.body.data.card.cvv2
    expect(typeof cvv2).toBe('number')
    const direct = await sender(standIn.sandbox.url, TOKEN)('GET', `/v1/cards/${card}`)
    expect(String(cvv2)).toBe(direct.body.data.card.cvv2)

    const lines = read()
    const report = compareRecording(lines)
    const show = report.routes.find((r) => r.route === 'GET /v1/cards/{reference}')!
    expect(show.counts.map((c) => [c.kind, c.path, c.count])).toEqual([
      ['type', '$.data.card.cvv2', 1],
    ])
    const [example] = show.counts[0].examples
    // masked keeping its JSON type and length: still a number, not the card's
    expect(typeof example.upstream).toBe('number')
    expect(String(example.upstream)).toHaveLength(String(cvv2).length)
    expect(example.upstream).not.toBe(cvv2)
    expect(report.findings).toBe(1)

    const text = readFileSync(file, 'utf8')
    const recorded = lines.at(-1)!.response!.body as { data: { card: { cvv2: unknown } } }
    expect(typeof recorded.data.card.cvv2).toBe('number')
    expect(recorded.data.card.cvv2).not.toBe(cvv2)
    expect(text).not.toMatch(new RegExp(`"cvv2":"?${cvv2}\\b`))
    expect(text).not.toContain(direct.body.data.card.card_number)
  })

  it.each([
    ['', false],
    [' (recorded with --mask-personal)', true],
  ])(
    'pins a renamed key and a key copied from the reference so that each create keeps its own card user%s',
    async (_, maskPersonal) => {
      // the real service calls the full-identity create's `userCard` `cardUser`, and adds `id`,
      // the reference again
      const renamed: Edit = {
        route: 'POST /v1/card-users/create',
        edit(a) {
          const { message, userCard } = a.body.data
          a.body.data = { message, cardUser: { ...userCard, id: userCard.reference } }
        },
        findings: (a) => [
          { path: '$.data.userCard', kind: 'missing-key', upstream: 'absent', sandbox: 'object' },
          {
            path: '$.data.cardUser',
            kind: 'extra-key',
            upstream: a.body.data.cardUser,
            sandbox: 'absent',
          },
        ],
      }
      const { standIn, proxy, read } = await proxied([renamed], maskPersonal)
      const send = sender(proxy.url)
      const recorded = await send('POST', '/v1/card-users/create', fullIdentity())
      const person = recorded.body.data.cardUser
      expect(person.id).toBe(person.reference)

      const lines = read()
      expect(lines.map((line) => line.findings?.map((f) => `${f.kind} ${f.path}`))).toEqual(
        standIn.expected.map((findings) => findings.map((f) => `${f.kind} ${f.path}`)),
      )
      const file = join(tempDir(), 'pinned.yaml')
      const text = scenarioFromReport(compareRecording(lines), lines)
      writeFileSync(file, text)
      // no recorded person's data, nor the recorded reference, in the file
      for (const value of [person.reference, ...Object.values(fullIdentity())])
        expect(text).not.toContain(String(value))

      const s = newSandbox({ scenarios: [file] })
      cleanups.push(() => s.close())
      const first = await s.call('POST', '/v1/card-users/create', fullIdentity())
      const second = await s.call('POST', '/v1/card-users/create', fullIdentity())
      const references = [first, second].map((answer) => {
        expect(answer.status).toBe(200)
        expect(Object.keys(answer.body.data)).toEqual(['message', 'cardUser'])
        const { cardUser } = answer.body.data
        expect(cardUser.reference).toMatch(UUID)
        expect(cardUser.id).toBe(cardUser.reference)
        // in the real service's order: `id` after the identity
        expect(Object.keys(cardUser)).toEqual(Object.keys(person))
        return cardUser.reference as string
      })
      expect(references[0]).not.toBe(references[1])
      for (const reference of references) {
        const shown = await s.call('GET', `/v1/card-users/${reference}`)
        expect(shown.status).toBe(200)
        expect(shown.body.data.cardUser.reference).toBe(reference)
      }
    },
  )
})
