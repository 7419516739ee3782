/**
 * Stages chained in one Hono layer (src/http/middleware/chained.ts) run as they would each in a
 * layer of their own: in order, up to the first that answers or throws, whose error the app's
 * onError renders, with the layers around them none the wiser.
 */
import { Hono, type MiddlewareHandler } from 'hono'
import { describe, expect, it } from 'vitest'
import { chained } from '../../../src/http/middleware/chained.js'

/** An app whose one layer chains `stages` between an outer layer that writes down what it saw. */
function appWith(
  stages: [MiddlewareHandler, ...MiddlewareHandler[]],
  ran: string[],
  handler: MiddlewareHandler = (c) => {
    ran.push('handler')
    return Promise.resolve(c.text('handled'))
  },
) {
  const app = new Hono()
  app.use(async (c, next) => {
    await next()
    ran.push(`outer saw ${c.res.status}`)
  })
  app.use(chained(...stages))
  app.get('/', handler)
  app.onError((error, c) => c.text(`rendered: ${error.message}`, 418))
  return app
}

const stage =
  (name: string, ran: string[]): MiddlewareHandler =>
  (_c, next) => {
    ran.push(name)
    return next()
  }

describe('chained stages', () => {
  it('run in the order given, then the route, in one layer', async () => {
    const ran: string[] = []
    const res = await appWith([stage('a', ran), stage('b', ran), stage('c', ran)], ran).request('/')
    expect(await res.text()).toBe('handled')
    expect(ran).toEqual(['a', 'b', 'c', 'handler', 'outer saw 200'])
  })

  it('stop at a stage that throws: the error is rendered by onError, and the layers around see the answer', async () => {
    const ran: string[] = []
    const throwing: MiddlewareHandler = async () => {
      ran.push('b')
      throw new Error('no token')
    }
    const res = await appWith([stage('a', ran), throwing, stage('c', ran)], ran).request('/')
    expect(res.status).toBe(418)
    expect(await res.text()).toBe('rendered: no token')
    expect(ran).toEqual(['a', 'b', 'outer saw 418'])
  })

  it('stop at a stage that answers without calling next', async () => {
    const ran: string[] = []
    const answering: MiddlewareHandler = (c) => {
      ran.push('b')
      return Promise.resolve(c.body(null, 204))
    }
    const res = await appWith([stage('a', ran), answering, stage('c', ran)], ran).request('/')
    expect(res.status).toBe(204)
    expect(ran).toEqual(['a', 'b', 'outer saw 204'])
  })

  it('at their end, run work after next() once the route answered, inner ones first, and see the answer', async () => {
    const ran: string[] = []
    const after =
      (name: string): MiddlewareHandler =>
      async (c, next) => {
        await next()
        ran.push(`${name} saw ${c.res.status}`)
      }
    const res = await appWith([stage('a', ran), after('journal'), after('kick')], ran).request('/')
    expect(await res.text()).toBe('handled')
    expect(ran).toEqual(['a', 'handler', 'kick saw 200', 'journal saw 200', 'outer saw 200'])
  })

  it('at their end, see the rendered error when the route throws, and still run', async () => {
    const ran: string[] = []
    const after: MiddlewareHandler = async (c, next) => {
      await next()
      ran.push(`after saw ${c.res.status}`)
    }
    const failing: MiddlewareHandler = () => {
      ran.push('handler')
      throw new Error('refused')
    }
    const res = await appWith([stage('a', ran), after], ran, failing).request('/')
    expect(res.status).toBe(418)
    expect(await res.text()).toBe('rendered: refused')
    expect(ran).toEqual(['a', 'handler', 'after saw 418', 'outer saw 418'])
  })
})
