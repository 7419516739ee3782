/**
 * The OpenAPI document of the command that ships: dist/bin's
 * esbuild bundle, not tsc's build, serves `/__sandbox/openapi.json`. Every operation in it must
 * ask for the bearer token exactly when its route declares `auth: 'bearer'` (route-meta.ts);
 * test/auth.test.ts checks those declarations against what each route answers.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { documentedRoutes, openApiPath } from '../../src/http/openapi.js'
import { newSandbox } from '../helpers.js'

const BUNDLE = new URL('../../dist/bin/card-sandbox.js', import.meta.url).pathname

let child: ChildProcess
let url: string

beforeAll(async () => {
  child = spawn(process.execPath, [BUNDLE, '--port', '0', '--log', 'silent'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk
      const match = /API\s+(http:\/\/\S+)\/v1/.exec(output)
      if (match) resolve(match[1])
    })
    child.stderr!.on('data', (chunk) => (output += chunk))
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)))
  })
})

afterAll(() => {
  child?.kill('SIGKILL')
})

describe('the bundled command’s OpenAPI document', () => {
  it('asks for the bearer token on exactly the operations whose routes declare it', async () => {
    const res = await fetch(`${url}/__sandbox/openapi.json`)
    expect(res.status).toBe(200)
    const document = (await res.json()) as {
      security: unknown
      paths: Record<string, Record<string, { security?: unknown; responses: object }>>
    }
    expect(document.security).toEqual([{ bearerAuth: [] }])

    const routes = documentedRoutes(newSandbox().app)
    const operations = Object.values(document.paths).flatMap((item) => Object.keys(item))
    expect(operations).toHaveLength(routes.length)
    const wrong = routes
      .map((route) => {
        const operation = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()]
        const documented = operation?.security === undefined ? 'bearer' : 'none'
        return { route: `${route.method} ${route.path}`, declared: route.meta?.auth, documented }
      })
      .filter(({ declared, documented }) => declared !== documented)
    expect(wrong).toEqual([])
    expect(routes.filter((route) => route.meta?.auth === 'bearer').length).toBeGreaterThan(40)
  })
})
