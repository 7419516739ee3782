/**
 * compareRecording on the stand-in's recording (stand-in.ts): the report counts exactly the
 * planted edits, grouped by route, and reads the stand-in's slower issuing from the reads' instants.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { compareRecording } from '../../src/index.js'
import {
  capture,
  countsOf,
  PLANTED_COUNTS,
  recorded as recordedFrom,
  type Captured,
} from './stand-in.js'

// the flow's answers, captured once; each test compares them itself, so that mutation testing
// sees which test covers which line of the report
let captured: Captured[]
beforeAll(async () => {
  captured = await capture()
})
const analysed = () => {
  const recorded = recordedFrom(captured)
  return { recorded, report: compareRecording(recorded.lines) }
}

describe('compareRecording', () => {
  it('counts every exchange and every finding, grouped by route', () => {
    const { recorded, report } = analysed()
    expect(report.exchanges).toBe(recorded.lines.length)
    expect(report.findings).toBe(recorded.expected.flat().length)
    expect(countsOf(report)).toEqual(PLANTED_COUNTS)
  })

  it('lists the routes without a finding after the others, with their exchanges', () => {
    const { report } = analysed()
    expect(report.routes.map((r) => [r.route, r.exchanges, r.findings])).toEqual([
      ['GET /v1/card-users/{reference}', 2, 4],
      ['GET /v1/cards', 2, 3],
      ['GET /v1/cards/{reference}', 3, 5],
      ['POST /v1/cards/create', 2, 1],
      ['POST /v1/transactions/create', 1, 1],
      ['GET /v1/card-users', 1, 0],
      ['GET /v1/transactions', 1, 0],
      ['GET /v1/transactions/{reference}', 1, 0],
      ['POST /v1/card-users/create', 1, 0],
      ['POST /v1/cards/freeze', 2, 0],
    ])
  })

  it('keeps an example of what each side sends, with its instant', () => {
    const { report } = analysed()
    const cards = report.routes.find((r) => r.route === 'GET /v1/cards')!
    expect(cards.counts.find((c) => c.kind === 'enum')!.examples).toEqual([
      {
        at: '2026-11-28T17:00:13.000Z',
        upstream: 'active',
        sandbox: ['issuing', 'issued', 'frozen', 'failed'],
      },
    ])
  })

  it('reads the delays from the reads around each move, beside the sandbox’s defaults', () => {
    const { report } = analysed()
    const none = { resources: 0, moved: 0, lastOldMs: null, firstNewMs: null, newStates: [] }
    expect(report.timing).toEqual([
      // the create answers pending at 0; a read at 0 still pending, at 4 s passed
      {
        delay: 'card_user_verification',
        sandboxMs: 3000,
        resources: 1,
        moved: 1,
        lastOldMs: 0,
        firstNewMs: 4000,
        newStates: ['passed'],
      },
      // the stand-in's slower issuing: still issuing at 6 s, issued at 9 s (the sandbox: 5 s)
      {
        delay: 'card_issuing',
        sandboxMs: 5000,
        resources: 1,
        moved: 1,
        lastOldMs: 6000,
        firstNewMs: 9000,
        // the list's planted rename is a state read too
        newStates: ['active', 'issued'],
      },
      { delay: 'card_link_details', sandboxMs: 3000, ...none },
      {
        delay: 'transaction_settlement',
        sandboxMs: 5000,
        resources: 1,
        moved: 1,
        lastOldMs: 0,
        firstNewMs: 5000,
        newStates: ['success'],
      },
      { delay: 'disburse_settlement', sandboxMs: 5000, ...none },
      { delay: 'payment_outcome', sandboxMs: 5000, ...none },
    ])
  })

  it('takes the delays from the reads’ instants, in whatever order the lines come', () => {
    const { recorded, report } = analysed()
    const shuffled = [...recorded.lines].reverse()
    expect(compareRecording(shuffled).timing).toEqual(report.timing)
  })
})
