/**
 * SandboxError (src/domain/errors.ts): a refusal the sandbox answers with, so it carries no stack
 * trace (V8 would walk the stack at every 4xx for no reader), while every other error keeps its.
 */
import { describe, expect, it } from 'vitest'
import { notFound, SandboxError } from '../../src/domain/errors.js'

describe('SandboxError', () => {
  it('carries its code, message and details but no stack frames', () => {
    const error = notFound('card_reference', 'card', 'abc')
    expect(error).toBeInstanceOf(SandboxError)
    expect(error.code).toBe('not_found')
    expect(error.details.errors).toEqual({ card_reference: [error.message] })
    expect(error.name).toBe('SandboxError')
    expect(error.stack).toContain(error.message)
    expect(error.stack).not.toMatch(/\n\s+at /)
  })

  it('leaves the stack traces of other errors as they were', () => {
    const before = Error.stackTraceLimit
    new SandboxError('validation', 'refused')
    expect(Error.stackTraceLimit).toBe(before)
    expect(new Error('a fault').stack).toMatch(/\n\s+at /)
  })
})
