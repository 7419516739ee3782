/**
 * A golden file: a value's JSON, one space of indent so that a diff reads line by line, compared
 * byte for byte with the committed copy. `CARD_SANDBOX_UPDATE_GOLDEN=1` writes the copy first,
 * only for a change meant to alter it; the diff then shows the reader what moved.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { expect } from 'vitest'

export const goldenText = (value: unknown) => JSON.stringify(value, null, 1) + '\n'

export function expectGolden(file: URL, value: unknown): void {
  const text = goldenText(value)
  if (process.env.CARD_SANDBOX_UPDATE_GOLDEN === '1') writeFileSync(file, text)
  expect(text).toBe(readFileSync(file, 'utf8'))
}
