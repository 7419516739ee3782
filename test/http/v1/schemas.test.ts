/**
 * The shared field rules of the /v1 bodies, read straight from the schemas: the typed client and
 * the OpenAPI document use them outside a request, where nothing has checked that a body is an
 * object first (over HTTP the body reader refuses anything else before a schema sees it).
 */
import { describe, expect, it } from 'vitest'
import {
  createCardUserBody,
  createDisburseBody,
  createDisputeBody,
  linkCardBody,
  updateDisputeBody,
  walletToCardBody,
} from '../../../src/http/v1/bodies.js'

const crossFieldBodies = {
  createCardUserBody,
  linkCardBody,
  walletToCardBody,
  createDisburseBody,
  createDisputeBody,
  updateDisputeBody,
}

describe('a body with a cross-field rule', () => {
  it.each(Object.entries(crossFieldBodies))(
    '%s refuses null and a string with the one type error, its cross-field rule not run',
    (_name, schema) => {
      for (const value of [null, 'a string']) {
        const parsed = schema.safeParse(value)
        expect(parsed.success, JSON.stringify(value)).toBe(false)
        expect(
          parsed.error?.issues.map(({ code, path }) => ({ code, path })),
          JSON.stringify(value),
        ).toEqual([{ code: 'invalid_type', path: [] }])
      }
    },
  )
})
