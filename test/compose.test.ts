/**
 * The team sandbox's compose set-up (compose.yaml, deploy/nginx.conf; docs/team.md "Team sandbox"),
 * run without a Docker engine (none runs on these machines): its services read for what they
 * must agree on, then the same topology run as processes: the built command as each replica with
 * that service's environment on a PostgreSQL schema (CARD_SANDBOX_TEST_PG), and a real nginx
 * with deploy/nginx.conf in front, its upstream names pointed at the replicas' ports.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { freePort } from './ports.js'
import { parse } from 'yaml'
import { fullIdentity } from './helpers.js'
import { freshSchema, TEST_PG } from './pg.js'
import { tempDir } from './temp-dir.js'

const ROOT = new URL('..', import.meta.url).pathname
const CLI = `${ROOT}dist/bin/card-sandbox.js`

type Service = {
  image?: string
  environment?: Record<string, string>
  depends_on?: unknown
}
const compose = parse(readFileSync(`${ROOT}compose.yaml`, 'utf8')) as {
  services: Record<string, Service>
}
const nginxConf = readFileSync(`${ROOT}deploy/nginx.conf`, 'utf8')
const imagePort = /CARD_SANDBOX_PORT=(\d+)/.exec(readFileSync(`${ROOT}Dockerfile`, 'utf8'))![1]

/** The services that run the sandbox's image: the replicas. */
const replicas = Object.entries(compose.services).filter(([, s]) =>
  s.image?.startsWith('card-sandbox'),
)

const NGINX = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim()

const cleanups: (() => void | Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function started(child: ChildProcess): Promise<void> {
  return new Promise((listening, failed) => {
    let out = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('listening')) listening()
    })
    child.once('exit', (code) => failed(new Error(`exited ${code}: ${out}`)))
  })
}

describe('the compose set-up', () => {
  it('runs two or more replicas of the image on the PostgreSQL service, with the same clock flags', () => {
    expect(replicas.length).toBeGreaterThanOrEqual(2)
    expect(compose.services.postgres).toBeDefined()
    const clocks = new Set<string>()
    for (const [, service] of replicas) {
      const db = new URL(service.environment!.CARD_SANDBOX_DB)
      expect(db.protocol).toBe('postgres:')
      expect(db.hostname).toBe('postgres')
      clocks.add(
        ['CLOCK', 'SPEED', 'CLOCK_START']
          .map((flag) => service.environment![`CARD_SANDBOX_${flag}`])
          .join(' '),
      )
    }
    expect(clocks.size).toBe(1)
  })

  it('balances over every replica, on the port the image listens on', () => {
    const upstream = [...nginxConf.matchAll(/^\s*server\s+([\w.-]+):(\d+)/gm)]
    expect(upstream.map(([, name]) => name).sort()).toEqual(replicas.map(([name]) => name).sort())
    expect(new Set(upstream.map(([, , port]) => port))).toEqual(new Set([imagePort]))
  })

  it.skipIf(!TEST_PG || !NGINX)(
    'serves one tenant through nginx from every replica, and keeps serving when one is killed',
    async () => {
      const schema = await freshSchema()
      cleanups.push(() => schema.drop())
      const dir = tempDir('card-sandbox-compose-')

      const children: ChildProcess[] = []
      cleanups.push(() => children.forEach((child) => child.kill('SIGKILL')))
      let conf = nginxConf
      for (const [name, service] of replicas) {
        const port = await freePort()
        const child = spawn(process.execPath, [CLI, '--log', 'silent'], {
          env: {
            ...process.env,
            ...service.environment,
            CARD_SANDBOX_DB: schema.url,
            CARD_SANDBOX_HOST: '127.0.0.1',
            CARD_SANDBOX_PORT: String(port),
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        })
        children.push(child)
        await started(child)
        conf = conf.replace(new RegExp(`server\\s+${name}:\\d+`), `server 127.0.0.1:${port}`)
      }
      const lbPort = await freePort()
      conf = conf.replace(/listen\s+80;/, `listen 127.0.0.1:${lbPort};`)
      writeFileSync(
        join(dir, 'nginx.conf'),
        // one process (no workers), so that killing it stops it all
        `daemon off; master_process off; pid ${dir}/nginx.pid; error_log ${dir}/error.log;\n` +
          `events {}\nhttp { access_log off; client_body_temp_path ${dir}/body; ` +
          `proxy_temp_path ${dir}/proxy;\n${conf}\n}\n`,
      )
      const nginx = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf')], { stdio: 'ignore' })
      cleanups.push(() => void nginx.kill('SIGKILL'))

      const base = `http://localhost:${lbPort}`
      const headers = { Authorization: 'Bearer compose-team', 'Content-Type': 'application/json' }
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(base + path, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        })
        return { status: res.status, body: (await res.json()) as any }
      }
      // nginx is up once it answers (with a replica's answer)
      let health = 0
      for (let i = 0; i < 100 && health !== 200; i++) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, 100))
        health = await fetch(`${base}/__sandbox/health`).then(
          (res) => res.status,
          () => 0,
        )
      }
      expect(health).toBe(200)

      // made on one replica, moved on another, read on each (nginx takes turns)
      const user = await call('POST', '/v1/card-users/create', fullIdentity())
      expect(user.status).toBe(200)
      const reference = user.body.data.userCard.reference as string
      expect(
        (await call('POST', `/__sandbox/card-users/${reference}/transition`, { to: 'passed' }))
          .status,
      ).toBe(200)
      expect((await call('PUT', '/__sandbox/delays', { card_issuing: '200ms' })).status).toBe(200)
      const card = await call('POST', '/v1/cards/create', {
        card_user_reference: reference,
        card_brand: 'visa',
        card_type: 'virtual',
      })
      expect(card.status).toBe(200)
      const cardReference = card.body.data.card.reference as string
      let statuses = ['not read']
      for (let i = 0; i < 50 && !statuses.every((s) => s === 'issued'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        statuses = await Promise.all(
          replicas.map(
            async () => (await call('GET', `/v1/cards/${cardReference}`)).body.data.card.status,
          ),
        )
      }
      expect(statuses).toEqual(replicas.map(() => 'issued'))

      // one replica killed: nginx sends every call to the others
      children[0].kill('SIGKILL')
      const after = await Promise.all(
        Array.from({ length: 20 }, () => call('GET', `/v1/cards/${cardReference}`)),
      )
      expect(after.map((a) => a.status)).toEqual(after.map(() => 200))
    },
    60_000,
  )
})
