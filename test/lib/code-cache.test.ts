/**
 * lib/code-cache.ts: the bundled command run with V8's code cache kept beside it. Each test
 * writes a small CommonJS file of its own (a nonce in it: V8 would otherwise find the source in
 * this process's compilation cache from an earlier test) that records what it ran.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { runWithCodeCache } from '../../src/lib/code-cache.js'
import { until } from '../webhooks/receiver.js'
import { tempDir } from '../temp-dir.js'

/**
 * A CommonJS module inside node's wrapper, as the bundle is, that writes `said` and its own
 * __filename to `ran` beside it; then `last`.
 */
function commandFile(said: string, last = '') {
  const dir = tempDir('card-sandbox-code-cache-')
  const file = join(dir, 'cli.cjs')
  writeFileSync(
    file,
    [
      '#!/usr/bin/env node',
      '(function (exports, require, module, __filename, __dirname) {',
      `// ${Math.random()}`,
      "const { writeFileSync } = require('node:fs')",
      `writeFileSync(require('node:path').join(__dirname, 'ran'), '${said} ' + __filename)`,
      last,
      '})',
    ].join('\n'),
  )
  return { dir, file, cache: `${file}.cache`, ran: () => readFileSync(join(dir, 'ran'), 'utf8') }
}

/** Writes a cache at once, whatever node options this test process runs with. */
const now = { writeAfterMs: 0, mayWrite: true }

const exists = (file: string) => {
  try {
    return statSync(file).isFile()
  } catch {
    return false
  }
}

describe('runWithCodeCache', () => {
  it('runs the file (its #! line, require, __dirname, __filename) and, with no cache, writes one headed by the source’s CRC-32', async () => {
    const command = commandFile('first')
    expect(runWithCodeCache(command.file, now)).toBe('none')
    expect(command.ran()).toBe(`first ${command.file}`)
    await until(() => exists(command.cache), 5_000, 'the cache')
    const cache = readFileSync(command.cache)
    expect(cache.readUInt32BE(0)).toBe(crc32(readFileSync(command.file)))
    expect(cache.length).toBeGreaterThan(4)
  })

  it('hands V8 the cache the source was compiled to, and writes none again', async () => {
    const command = commandFile('cached')
    runWithCodeCache(command.file, now)
    await until(() => exists(command.cache), 5_000, 'the cache')
    const written = statSync(command.cache).mtimeMs
    expect(runWithCodeCache(command.file, now)).toBe('accepted')
    expect(command.ran()).toBe(`cached ${command.file}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(statSync(command.cache).mtimeMs).toBe(written)
  })

  it('ignores the cache of another source of the same length: the new code runs, and its cache replaces the old', async () => {
    const command = commandFile('old')
    runWithCodeCache(command.file, now)
    await until(() => exists(command.cache), 5_000, 'the cache')
    const before = readFileSync(command.file, 'utf8')
    const after = before.replace("'old ", "'new ")
    writeFileSync(command.file, after)
    expect(after.length).toBe(before.length)
    expect(runWithCodeCache(command.file, now)).toBe('stale')
    expect(command.ran()).toBe(`new ${command.file}`)
    const checksum = crc32(Buffer.from(after))
    await until(
      () => readFileSync(command.cache).readUInt32BE(0) === checksum,
      5_000,
      'a new cache',
    )
  })

  it('runs the file when V8 refuses the cache, and writes a good one', async () => {
    const command = commandFile('refused')
    const header = Buffer.alloc(4)
    header.writeUInt32BE(crc32(readFileSync(command.file)))
    writeFileSync(command.cache, Buffer.concat([header, Buffer.from('not bytecode at all')]))
    expect(runWithCodeCache(command.file, now)).toBe('rejected')
    expect(command.ran()).toBe(`refused ${command.file}`)
    await until(() => readFileSync(command.cache).length > 100, 5_000, 'a good cache')
    expect(runWithCodeCache(command.file, now)).toBe('accepted')
  })

  it('runs afterStart once the cache is written, and after a start that wrote none', async () => {
    const command = commandFile('after')
    const seen: boolean[] = []
    runWithCodeCache(command.file, { ...now, afterStart: () => seen.push(exists(command.cache)) })
    await until(() => seen.length === 1, 5_000, 'afterStart')
    expect(seen).toEqual([true])
    expect(runWithCodeCache(command.file, { ...now, afterStart: () => seen.push(true) })).toBe(
      'accepted',
    )
    await until(() => seen.length === 2, 5_000, 'afterStart of an accepted cache')
  })

  it('lets the file import() a module, as a module node loaded would', async () => {
    const command = commandFile(
      'imports',
      "import('node:os').then((os) => writeFileSync(__dirname + '/imported', os.EOL))",
    )
    runWithCodeCache(command.file, { writeAfterMs: 60_000 })
    const imported = join(command.dir, 'imported')
    await until(() => exists(imported), 5_000, 'the import')
    expect(readFileSync(imported, 'utf8')).toBe('\n')
  })

  it('keeps every line of the file where it was, for stack traces', () => {
    const command = commandFile('lines', "throw new Error('on line 6')")
    expect(() => runWithCodeCache(command.file, { writeAfterMs: 60_000 })).toThrow(
      expect.objectContaining({ stack: expect.stringContaining(`${command.file}:6:`) }),
    )
  })

  it('reads text that is not ASCII as UTF-8', () => {
    const command = commandFile('café')
    runWithCodeCache(command.file, { writeAfterMs: 60_000 })
    expect(command.ran()).toBe(`café ${command.file}`)
  })

  it('refuses a file that is not a module inside node’s wrapper', () => {
    const command = commandFile('bare')
    writeFileSync(
      command.file,
      "#!/usr/bin/env node\nconst bare = 'a module as node would load it'\n",
    )
    expect(() => runWithCodeCache(command.file, { writeAfterMs: 60_000 })).toThrow(
      `${command.file} is not a CommonJS module inside node's wrapper function`,
    )
  })

  it('writes no cache when node runs with options (they change V8’s flags: a plain start would refuse it)', async () => {
    const command = commandFile('flagged')
    expect(runWithCodeCache(command.file, { writeAfterMs: 0, mayWrite: false })).toBe('none')
    expect(command.ran()).toBe(`flagged ${command.file}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(exists(command.cache)).toBe(false)
  })

  it('runs without a cache where it cannot write one', async () => {
    const command = commandFile('unwritable')
    // where the cache is written before its rename: a directory there fails the write
    mkdirSync(`${command.cache}.${process.pid}`)
    expect(runWithCodeCache(command.file, now)).toBe('none')
    expect(command.ran()).toBe(`unwritable ${command.file}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(exists(command.cache)).toBe(false)
  })
})
