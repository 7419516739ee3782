/**
 * The container image's runtime settings (Dockerfile, docs/team.md "In a container"), run without a
 * Docker engine (none runs on these machines): the built command started with the final
 * stage's environment, called with the Host names a container is reached by, and the image's
 * HEALTHCHECK command run against it, up and then stopped.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { freePort } from './ports.js'

const ROOT = new URL('..', import.meta.url).pathname
const CLI = `${ROOT}dist/bin/card-sandbox.js`
const running: ChildProcess[] = []

afterEach(() => {
  for (const child of running.splice(0)) child.kill('SIGKILL')
})

type Stage = {
  env: Record<string, string>
  user?: string
  healthcheck?: string[]
  entrypoint?: string[]
}

/** The Dockerfile's instructions, continuation lines joined, comments left out. */
function instructions(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
}

/** What the last stage (after the last FROM) sets. */
function runtimeStage(text: string): Stage {
  const all = instructions(text)
  const lastFrom = all.findLastIndex((i) => /^FROM\s/i.test(i))
  const stage: Stage = { env: {} }
  for (const line of all.slice(lastFrom + 1)) {
    const [, keyword, rest] = /^(\w+)\s+(.*)$/.exec(line)!
    switch (keyword.toUpperCase()) {
      case 'ENV':
        for (const pair of rest.split(/\s+/)) {
          const at = pair.indexOf('=')
          stage.env[pair.slice(0, at)] = pair.slice(at + 1)
        }
        break
      case 'USER':
        stage.user = rest
        break
      case 'HEALTHCHECK':
        stage.healthcheck = JSON.parse(rest.slice(rest.indexOf('CMD') + 3)) as string[]
        break
      case 'ENTRYPOINT':
        stage.entrypoint = JSON.parse(rest) as string[]
        break
    }
  }
  return stage
}

const dockerfile = readFileSync(`${ROOT}Dockerfile`, 'utf8')
const image = runtimeStage(dockerfile)

/** The shell commands the first stage runs, in order (each RUN split at `&&`). */
function buildStageCommands(text: string): string[] {
  const all = instructions(text)
  const stages = all.flatMap((line, at) => (/^FROM\s/i.test(line) ? [at] : []))
  return all
    .slice(stages[0] + 1, stages[1])
    .filter((line) => /^RUN\s/i.test(line))
    .flatMap((line) => line.replace(/^RUN\s+/i, '').split('&&'))
    .map((command) => command.trim().replace(/\s+/g, ' '))
}

/** The command as the image runs it: the final stage's environment, on a free port. */
async function startAsImage() {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...image.env,
    CARD_SANDBOX_PORT: String(await freePort()),
  }
  // the tests run under npm: the image's command is not, and must not stop with npm
  delete env.npm_lifecycle_event
  const child = spawn(process.execPath, [CLI, '--log', 'silent'], {
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  running.push(child)
  await new Promise<void>((listening, failed) => {
    let out = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('listening')) listening()
    })
    child.once('exit', (code) => failed(new Error(`exited ${code}: ${out}`)))
  })
  return { child, env, port: Number(env.CARD_SANDBOX_PORT) }
}

/** GET `path` on the sandbox with a Host header of our choosing (fetch cannot set one). */
function statusWithHost(port: number, host: string, path = '/__sandbox/health') {
  return new Promise<number>((answered, failed) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { Host: host } }, (res) => {
      res.resume()
      answered(res.statusCode!)
    })
    req.once('error', failed)
    req.end()
  })
}

/** The image's HEALTHCHECK command, with the environment the container has: its exit code. */
function healthcheck(env: NodeJS.ProcessEnv): number | null {
  const [command, ...args] = image.healthcheck!
  return spawnSync(command === 'node' ? process.execPath : command, args, { env, timeout: 10_000 })
    .status
}

describe('the container image', () => {
  it('builds the package once: `npm ci` builds, `npm pack` finds that build current', () => {
    const commands = buildStageCommands(dockerfile)
    // what runs the package's prepare or its build in the sources' folder (the last install is
    // the packed tarball's, which runs no prepare)
    const building = commands.filter((command) =>
      /^npm (ci|install|i|pack|run build|run-script build)\b/.test(command),
    )
    expect(building.map((command) => command.split(' ').slice(0, 2).join(' '))).toEqual([
      'npm ci',
      'npm pack',
      'npm install',
    ])
    expect(building[0]).not.toContain('--ignore-scripts')
    expect(building[2]).toMatch(/\.tgz$/)
    // the stage's sources come without a dist/ (and its stamp) from the build context...
    expect(readFileSync(`${ROOT}.dockerignore`, 'utf8').split('\n')).toContain('dist')
    // ...and `npm pack`'s prepare builds only when dist/ is not the build of those sources
    const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as {
      scripts: Record<string, string>
    }
    expect(pkg.scripts.prepare).toBe('node scripts/prepare.mjs')
  })

  it('runs the package command as an unprivileged user', () => {
    expect(image.user).toBeDefined()
    expect(image.user).not.toMatch(/^(root|0)(:|$)/)
    const bin = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).bin as Record<
      string,
      string
    >
    expect(Object.keys(bin)).toContain(image.entrypoint![0].split('/').pop())
  })

  it('listens on every interface and answers the names it is reached by, and only those', async () => {
    expect(image.env.CARD_SANDBOX_HOST).toBe('0.0.0.0')
    const { port } = await startAsImage()
    const publicHost = new URL(image.env.CARD_SANDBOX_PUBLIC_URL).host
    for (const name of image.env.CARD_SANDBOX_ALLOWED_HOST.split(','))
      expect(await statusWithHost(port, `${name}:${port}`)).toBe(200)
    expect(await statusWithHost(port, publicHost)).toBe(200)
    expect(await statusWithHost(port, 'attacker.example')).toBe(403)
  })

  it('passes its health check while it serves, and fails it once stopped', async () => {
    const { child, env } = await startAsImage()
    expect(healthcheck(env)).toBe(0)
    const exited = new Promise((done) => child.once('exit', done))
    child.kill('SIGTERM')
    await exited
    expect(healthcheck(env)).not.toBe(0)
  })
})
