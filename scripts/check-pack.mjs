#!/usr/bin/env node
// Checks the package as users install it: `npm pack`, install the tarball into an empty
// folder, run `npx card-sandbox --port 0`, call it over a socket, and type-check an import.
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const root = resolve(import.meta.dirname, '..')
const dir = mkdtempSync(join(tmpdir(), 'card-sandbox-pack-'))
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })

try {
  const tarball = run('npm', ['pack', '--silent', '--pack-destination', dir], root)
    .trim()
    .split('\n')
    .pop()
  console.log(`packed ${tarball}`)
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  )
  run('npm', ['install', '--no-audit', '--no-fund', join(dir, tarball)], dir)

  // its own process group, so that npx and the sandbox under it stop together
  const child = spawn('npx', ['card-sandbox', '--port', '0', '--log', 'silent'], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise((ok) => child.once('exit', ok))
  const baseUrl = await new Promise((ok, fail) => {
    let out = ''
    const timer = setTimeout(() => fail(new Error(`no banner after 30 s: ${out}`)), 30_000)
    child.stdout.on('data', (chunk) => {
      out += chunk
      const match = /API\s+(http:\/\/\S+\/v1)/.exec(out)
      if (match) {
        clearTimeout(timer)
        ok(match[1])
      }
    })
    child.once('exit', (code) => fail(new Error(`exited ${code}: ${out}`)))
  })
  const res = await fetch(`${baseUrl}/cards`, { headers: { Authorization: 'Bearer pack' } })
  const body = await res.json()
  if (res.status !== 200 || body.statusCode !== 200)
    throw new Error(`GET /v1/cards answered ${res.status}`)
  console.log(`npx card-sandbox answered GET ${baseUrl}/cards with 200`)
  const clientCall =
    "import { createSandboxClient } from 'card-sandbox/client'\n" +
    `const client = createSandboxClient({ baseUrl: '${baseUrl}', token: 'pack' })\n` +
    'console.log((await client.clock()).mode)'
  const mode = run(process.execPath, ['--input-type=module', '-e', clientCall], dir).trim()
  if (mode !== 'real') throw new Error(`card-sandbox/client read the clock mode as ${mode}`)
  console.log('the installed card-sandbox/client read the clock')
  process.kill(-child.pid, 'SIGTERM')
  await exited
  child.stdout.destroy()

  writeFileSync(
    join(dir, 'consumer.ts'),
    "import { startSandbox, createSandbox, type SandboxOptions } from 'card-sandbox'\n" +
      'const options: SandboxOptions = { port: 0, quirks: false }\n' +
      'const sandbox = await startSandbox(options)\nconst url: string = sandbox.baseUrl\nawait sandbox.close()\nvoid createSandbox\nvoid url\n' +
      "import { createSandboxClient, SandboxClientError } from 'card-sandbox/client'\n" +
      "const client = createSandboxClient({ baseUrl: url, token: 'pack' })\n" +
      "const moved: Promise<{ to: 'passed' | 'pending' | 'failed' }> = client.transition('card-users', '', 'passed')\n" +
      'void moved\nvoid SandboxClientError\n',
  )
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        target: 'ES2022',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
      files: ['consumer.ts'],
    }),
  )
  run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], dir)
  console.log('the installed package type-checks: card-sandbox and card-sandbox/client')
  console.log('pack check passed')
} finally {
  rmSync(dir, { recursive: true, force: true })
}
