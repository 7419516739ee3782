/**
 * Fixture files read and run on their own (src/engine/fixtures.ts), their errors word for word:
 * a name not found with the names that are, a path not found without them, a file that is not
 * JSON, the first bad field of one that is, and a step that did not answer 2xx with each field
 * its route refused, its message, or none.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  applyFixture,
  FIXTURES_DIR,
  FixtureError,
  knownFixtures,
  loadFixture,
  parseFixture,
  type Fixture,
} from '../../src/engine/fixtures.js'
import { tempDir } from '../temp-dir.js'

/** The FixtureError `run` throws or rejects with. */
async function refusal(run: () => unknown): Promise<FixtureError> {
  try {
    await run()
  } catch (error) {
    expect(error).toBeInstanceOf(FixtureError)
    return error as FixtureError
  }
  throw new Error('it was not refused')
}

describe('a fixture file', () => {
  it('not found by name is refused with the names there are; by path, without them', async () => {
    const names = knownFixtures().map((fixture) => fixture.name)
    expect(names).toEqual(['business-every-state', 'verified-user-funded-card'])
    expect((await refusal(() => loadFixture('nope'))).message).toBe(
      `no fixture "nope" (looked for ${FIXTURES_DIR}nope.json) (known: ${names.join(', ')})`,
    )
    const path = join(tempDir(), 'gone.json')
    expect((await refusal(() => loadFixture(path))).message).toBe(
      `no fixture "${path}" (looked for ${path})`,
    )
  })

  it('that is not JSON, or names no steps, is refused with its path and what is wrong', async () => {
    const dir = tempDir()
    const broken = join(dir, 'broken.json')
    writeFileSync(broken, '{"name": ')
    expect((await refusal(() => loadFixture(broken))).message).toMatch(
      new RegExp(`^${broken}: not valid JSON: \\S`),
    )
    expect((await refusal(() => parseFixture([], 'x.json'))).message).toBe(
      'x.json: (top level): Invalid input: expected object, received array',
    )
    expect(
      (await refusal(() => parseFixture({ name: 'x', steps: [{ call: 'FETCH /v1' }] }, 'y.json')))
        .message,
    ).toBe('y.json: steps.0.call: expected "METHOD /path"')
  })

  it('is described by the first sentence of its description', () => {
    for (const { description } of knownFixtures()) expect(description).toMatch(/^[^.]+\.$/)
  })
})

describe('a fixture run', () => {
  const fixture: Fixture = {
    name: 'two-steps',
    steps: [
      { call: 'POST /v1/card-users/create', body: { phone: '1' }, as: 'user' },
      { call: 'GET /v1/cards' },
    ],
  }
  /** A call answering each step with the next of `answers`. */
  const answering =
    (...answers: { status: number; body: unknown }[]) =>
    async () =>
      answers.shift()!

  it('takes every 2xx, to 299, and says how many steps it ran', async () => {
    const answers = answering({ status: 299, body: {} }, { status: 200, body: {} })
    expect(await applyFixture(fixture, answers)).toBe(2)
  })

  it('stops at a step answering 300 or more, with each field refused, its message, or none', async () => {
    const refused = await refusal(() =>
      applyFixture(
        fixture,
        answering({
          status: 422,
          body: {
            message: 'bad',
            errors: { phone: ['The phone is invalid.'], email: ['Required.', 'Again.'] },
          },
        }),
      ),
    )
    expect(refused.message).toBe(
      'fixture two-steps, step 1 (POST /v1/card-users/create) answered 422: phone: The phone is invalid.; email: Required. Again.',
    )
    expect(refused.storeUnreachable).toBe(false)
    const redirected = await refusal(() =>
      applyFixture(fixture, answering({ status: 300, body: { message: 'Moved' } })),
    )
    expect(redirected.message).toMatch(/answered 300: Moved$/)
    const unreachable = await refusal(() =>
      applyFixture(fixture, answering({ status: 200, body: {} }, { status: 503, body: null })),
    )
    expect(unreachable.message).toBe(
      'fixture two-steps, step 2 (GET /v1/cards) answered 503: no message',
    )
    expect(unreachable.storeUnreachable).toBe(true)
  })
})
